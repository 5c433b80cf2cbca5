package oncehttp

import "net"

// pending says, without waiting, whether something waits to be read on
// an idle connection (bytes nobody asked for, the server's close, a
// reset): it is then not reused. A connection of an unknown kind is taken
// as clean.
func pending(c net.Conn) bool {
	switch x := c.(type) {
	case interface{ Pending() bool }:
		return x.Pending()
	case *net.TCPConn:
		return pendingTCP(x)
	}
	return false
}
