package bubble

import (
	"net"
	"sync"
	"syscall"
	"time"
)

// apart is how far time.Now may be from the system's clock before the
// difference can only be a bubble's: a bubble's clock starts at midnight
// UTC on 2000-01-01 and moves only as its goroutines wait.
const apart = time.Hour

// In reports whether the calling goroutine runs in a bubble of
// testing/synctest: its time.Now, which the bubble fakes, is far from the
// system's clock, which it does not.
func In() bool {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return false
	}
	gap := time.Unix(tv.Unix()).Sub(time.Now())
	return gap > apart || gap < -apart
}

// Listen listens on the TCP address addr, as net.Listen("tcp", addr)
// does, outside a bubble. Inside one it returns a listener that holds the
// address without listening on it (see hold): no other listener gets
// the address while it is open, a dial to it is refused, and its Accept
// waits, durably, for Close.
func Listen(addr string) (net.Listener, error) {
	if !In() {
		return net.Listen("tcp", addr)
	}
	return hold(addr)
}

// held is a listener that takes no connection: Accept returns only once
// it is closed.
type held struct {
	addr    *net.TCPAddr
	release func() error
	once    sync.Once
	closed  chan struct{}
	err     error
}

func newHeld(addr *net.TCPAddr, release func() error) *held {
	return &held{addr: addr, release: release, closed: make(chan struct{})}
}

// Accept waits until the listener is closed, then says so.
func (h *held) Accept() (net.Conn, error) {
	<-h.closed
	return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: h.addr, Err: net.ErrClosed}
}

// Close lets the address go and ends Accept.
func (h *held) Close() error {
	h.once.Do(func() {
		close(h.closed)
		h.err = h.release()
	})
	return h.err
}

// Addr is the address held.
func (h *held) Addr() net.Addr { return h.addr }
