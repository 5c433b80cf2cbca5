//go:build unix

package oncehttp

import (
	"net"
	"syscall"
)

// pendingTCP peeks at the socket without blocking: a byte or the end of
// the stream (or an error) is pending; "would block" is a clean idle
// connection.
func pendingTCP(c *net.TCPConn) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return true
	}
	found := true
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		found = n > 0 || rerr == nil || (rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK)
		return true // never wait for readability
	})
	return found || err != nil
}
