//go:build !unix

package bubble

import (
	"net"
)

// hold listens on addr and never accepts: the address is taken, but a
// dial to it waits in the kernel's queue instead of being refused.
func hold(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return newHeld(ln.Addr().(*net.TCPAddr), ln.Close), nil
}
