package oncehttp

import (
	"crypto/tls"
	"net"
)

// pending says, without waiting, whether something waits to be read on
// an idle connection (bytes nobody asked for, the server's close, a
// reset): it is then not reused. A connection of an unknown kind is taken
// as clean.
func pending(c net.Conn) bool {
	switch x := c.(type) {
	case *tls.Conn:
		// What waits on the socket beneath: a record (the server's close
		// alert, or bytes nobody asked for), its close or a reset.
		return pending(x.NetConn())
	case interface{ Pending() bool }:
		return x.Pending()
	case *net.TCPConn:
		return pendingTCP(x)
	}
	return false
}
