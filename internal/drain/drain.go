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

// Tracker counts the requests in flight through the handlers it wraps,
// and stops the listeners it wraps from accepting when Close begins. The
// zero value is ready to use.
type Tracker struct {
	mu sync.Mutex
	n  int
	// idle is closed when n falls to 0; nil while n is 0.
	idle chan struct{}
	lns  []*listener
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

// Wrap returns h, counted: a request is in flight from the call of h's
// ServeHTTP until it returns.
func (t *Tracker) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.enter()
		defer t.leave()
		h.ServeHTTP(w, r)
	})
}

func (t *Tracker) enter() {
	t.mu.Lock()
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	t.mu.Unlock()
}

func (t *Tracker) leave() {
	t.mu.Lock()
	t.n--
	if t.n == 0 {
		close(t.idle)
		t.idle = nil
	}
	t.mu.Unlock()
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

// Close stops srv, whose handler (and listener, if any) t wraps: it stops
// the listener accepting, ends keep-alives, waits up to timeout for the
// requests in flight, then closes every connection. It returns an error when requests were still in flight at
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
