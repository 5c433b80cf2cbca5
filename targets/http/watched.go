package http

import (
	"context"
	"net"
	nethttp "net/http"
	"sync"
	"time"
)

// callClient returns a client that sends one call on a connection of its
// own, watched by wc, and follows no redirect. A connection is never
// reused (net/http would silently re-send a keyed request whose reused
// connection a fault had reset): the client is for one call, and its
// caller closes it (CloseIdleConnections) once the reply is read. The
// request asks to keep the connection open all the same, so that this
// side closes it first and keeps its TIME_WAIT: a server that closes
// first keeps its own, and a later connection given the same client port
// then waits a second for its SYN to be sent again.
func callClient(wc *watchedConn) *nethttp.Client {
	var d net.Dialer
	return &nethttp.Client{
		Transport: &nethttp.Transport{Proxy: nil, DisableCompression: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &watchedConnConn{Conn: c, w: wc}, nil
			}},
		CheckRedirect: func(*nethttp.Request, []*nethttp.Request) error { return nethttp.ErrUseLastResponse },
	}
}

// watchedConn records what was written on a call's connection: whether
// every write succeeded, and when the connection was closed, after which
// nothing more is written.
type watchedConn struct {
	mu       sync.Mutex
	wrote    bool // some bytes went out
	failed   bool // a write failed: the request went out in part at most
	closed   chan struct{}
	isClosed bool
}

// sentWhole waits (at most wait, or until ctx is done) until the
// connection the request was given is closed, as net/http closes it when
// the request is given up, and says whether the request was written whole
// by then. Unknown (the wait ran out) counts as sent.
func (w *watchedConn) sentWhole(ctx context.Context, wait time.Duration) bool {
	select {
	case <-w.closed:
	case <-time.After(wait):
		return true
	case <-ctx.Done():
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wrote && !w.failed
}

// watchedConnConn is a connection that reports to its watchedConn. A
// dial that ends after the call was given up makes a connection that
// net/http closes unused: it writes nothing.
type watchedConnConn struct {
	net.Conn
	w *watchedConn
}

func (c *watchedConnConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.w.mu.Lock()
	if n > 0 {
		c.w.wrote = true
	}
	if err != nil {
		c.w.failed = true
	}
	c.w.mu.Unlock()
	return n, err
}

func (c *watchedConnConn) Close() error {
	err := c.Conn.Close()
	c.w.mu.Lock()
	if !c.w.isClosed {
		c.w.isClosed = true
		close(c.w.closed)
	}
	c.w.mu.Unlock()
	return err
}
