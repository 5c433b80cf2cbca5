//go:build !unix

package oncehttp

import "net"

// pendingTCP cannot peek without blocking here: the connection is taken
// as clean.
func pendingTCP(*net.TCPConn) bool { return false }
