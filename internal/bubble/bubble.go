package bubble

import (
	"net"
	"sync"
	"time"
)

// start is the instant every bubble's fake clock starts at; a bubble's
// clock reads a later time only as far as its goroutines waited.
var start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// horizon is how far a bubble's clock may have moved and still be told
// apart from a real one: a year of waits, against a real clock decades on.
const horizon = 365 * 24 * time.Hour

// In reports whether the calling goroutine runs in a bubble of
// testing/synctest: its clock reads within a year after the instant every
// bubble's clock starts at, which no real clock does.
func In() bool {
	now := time.Now()
	return !now.Before(start) && now.Before(start.Add(horizon))
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
