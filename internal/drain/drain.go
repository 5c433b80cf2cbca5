package drain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Tracker counts the requests in flight on the servers it tracks, and
// stops the listeners it wraps from accepting when Close begins. A request
// is in flight from the moment its connection starts reading it until its
// reply is written whole (the connection's state goes from active to idle
// or closed): a handler that has returned may still have its reply to
// flush. The zero value is ready to use.
type Tracker struct {
	mu sync.Mutex
	n  int
	// idle is closed when n falls to 0; nil while n is 0.
	idle chan struct{}
	// active are the connections serving a request.
	active map[net.Conn]bool
	lns    []*listener
}

// Track makes t count srv's requests in flight, through srv.ConnState
// (a ConnState already set is called after).
func (t *Tracker) Track(srv *http.Server) {
	next := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		t.mu.Lock()
		switch st {
		case http.StateActive:
			if !t.active[c] {
				if t.active == nil {
					t.active = map[net.Conn]bool{}
				}
				t.active[c] = true
				t.enterLocked()
			}
		case http.StateIdle, http.StateClosed, http.StateHijacked:
			if t.active[c] {
				delete(t.active, c)
				t.leaveLocked()
			}
		}
		t.mu.Unlock()
		if next != nil {
			next(c, st)
		}
	}
}

// Listener returns ln for the server's Serve: Close stops it accepting
// (new connections are refused) before it waits for the requests in
// flight, and the server then sees it closed as its own.
func (t *Tracker) Listener(ln net.Listener) net.Listener {
	l := &listener{Listener: ln, closed: make(chan struct{})}
	t.mu.Lock()
	t.lns = append(t.lns, l)
	t.mu.Unlock()
	return l
}

// listener is a net.Listener whose underlying socket can be closed
// (stop) before the server is: Accept then blocks until Close, so that
// the server does not take the refused connections for an error of its
// own.
type listener struct {
	net.Listener
	stopOnce, closeOnce sync.Once
	stopped             atomic.Bool
	closed              chan struct{}
}

func (l *listener) stop() {
	l.stopOnce.Do(func() {
		l.stopped.Store(true)
		_ = l.Listener.Close()
	})
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.stopped.Load() {
		<-l.closed
		return nil, net.ErrClosed
	}
	return c, err
}

func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	if l.stopped.Load() {
		return nil
	}
	l.stop()
	return nil
}

func (t *Tracker) enterLocked() {
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
}

func (t *Tracker) leaveLocked() {
	t.n--
	if t.n == 0 {
		close(t.idle)
		t.idle = nil
	}
}

// InFlight is how many requests are in flight.
func (t *Tracker) InFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// Wait blocks until no request is in flight, or ctx is done; it returns
// ctx's error then, with how many requests were still in flight.
func (t *Tracker) Wait(ctx context.Context) error {
	for {
		t.mu.Lock()
		idle, n := t.idle, t.n
		t.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return fmt.Errorf("%d requests still in flight: %w", n, ctx.Err())
		}
	}
}

// Close stops srv, which t tracks (and whose listener, if any, it wraps):
// it stops the listener accepting, ends keep-alives, waits up to timeout
// for the requests in flight, then closes every connection. It returns an error when requests were still in flight at
// the timeout (they were cut), or when closing failed.
func Close(srv *http.Server, t *Tracker, timeout time.Duration) error {
	t.mu.Lock()
	lns := t.lns
	t.mu.Unlock()
	for _, l := range lns {
		l.stop()
	}
	srv.SetKeepAlivesEnabled(false)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := t.Wait(ctx)
	if cerr := srv.Close(); cerr != nil && !errors.Is(cerr, http.ErrServerClosed) {
		err = errors.Join(err, cerr)
	}
	return err
}
