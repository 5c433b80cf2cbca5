package oncehttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of Client.
const (
	// DefaultIdleTimeout is how long an idle connection is kept: below
	// the idle timeouts servers commonly use (2 s and more), so that the
	// client closes first.
	DefaultIdleTimeout = time.Second
	// DefaultMaxIdle is how many idle connections are kept per address.
	DefaultMaxIdle = 64
)

// Client sends HTTP/1.1 requests (http:// only), each at most once. The
// zero value is usable; a Client is safe for concurrent use.
type Client struct {
	// Dial opens a connection to addr (host:port); nil dials TCP.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// IdleTimeout is how long an idle connection is kept open
	// (DefaultIdleTimeout when zero).
	IdleTimeout time.Duration
	// MaxIdle is how many idle connections are kept per address
	// (DefaultMaxIdle when zero).
	MaxIdle int

	mu     sync.Mutex
	idle   map[string][]*conn
	closed bool
}

// Error is a request that failed, with how far it got.
type Error struct {
	// Op is where it failed: "dial" (no connection), "write" (the request
	// was not written whole) or "read" (written whole, and no complete
	// reply header came back).
	Op string
	// Reused is true when the connection had carried earlier requests.
	Reused bool
	// Err is the cause.
	Err error
	// nothing: not a byte of the request was written.
	nothing bool
}

// Error implements error.
func (e *Error) Error() string {
	switch e.Op {
	case "dial":
		return "connecting: " + e.Err.Error()
	case "write":
		return "sending the request: " + e.Err.Error()
	}
	return "reading the reply: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sent says whether err (from Do) leaves the request possibly received
// whole: it was written whole, or the failure is not an *Error.
func Sent(err error) bool {
	var e *Error
	return !errors.As(err, &e) || e.Op == "read"
}

// Dialed says whether err (from Do) came after a connection was made.
func Dialed(err error) bool {
	var e *Error
	return !errors.As(err, &e) || e.Op != "dial"
}

// conn is a connection and its buffers.
type conn struct {
	nc     net.Conn
	addr   string
	lim    *headLimit
	br     *bufio.Reader
	cw     *countingWriter
	bw     *bufio.Writer
	reused bool
	// idleTimer closes the connection once it has been idle too long.
	idleTimer *time.Timer
}

// Do sends req once (on an idle connection to its host, or a new one when
// there is none or fresh is set) and reads the reply's header section. The
// reply's Body must be closed; the connection is reused only when the body
// was read to its end. req's context bounds everything, the body's reads
// included; its deadline is set on the connection, so that it holds even
// for a context whose Done does not close at its deadline (one without a
// timer of its own). An error is an *Error, but for bad input.
func (c *Client) Do(req *http.Request, fresh bool) (*http.Response, error) {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		return nil, fmt.Errorf("oncehttp: expected an http:// URL with a host, got %v", req.URL)
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "dial", Err: err}
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	resp, err := c.send(ctx, req, addr, fresh)
	var e *Error
	if errors.As(err, &e) && e.Op == "write" && e.Reused && e.nothing && ctx.Err() == nil {
		// Not a byte of it reached the server (which closed the idle
		// connection as the request went out): sending it on a new
		// connection cannot make a duplicate.
		again := req
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, err
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			r := *req
			r.Body = body
			again = &r
		}
		return c.send(ctx, again, addr, true)
	}
	return resp, err
}

// send is Do on one connection.
func (c *Client) send(ctx context.Context, req *http.Request, addr string, fresh bool) (*http.Response, error) {
	var pc *conn
	if !fresh {
		pc = c.takeIdle(addr)
	}
	if pc == nil {
		nc, err := c.dial(ctx, addr)
		if err != nil {
			return nil, &Error{Op: "dial", Err: withCause(ctx, err)}
		}
		pc = newConn(nc, addr)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = pc.nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = pc.nc.SetDeadline(longAgo) })
	written := pc.cw.n
	fail := func(op string, err error) (*http.Response, error) {
		stop()
		_ = pc.nc.Close()
		return nil, &Error{Op: op, Reused: pc.reused, Err: withCause(ctx, err), nothing: pc.cw.n == written}
	}
	err := ctx.Err() // a connection that came after the context ended carries nothing
	if err == nil {
		err = writeRequest(pc.bw, req)
	}
	if err == nil {
		err = pc.bw.Flush()
	}
	if err != nil {
		return fail("write", err)
	}
	resp, err := readFinal(pc.br, pc.lim, req)
	if err != nil {
		return fail("read", err)
	}
	b := &body{c: c, pc: pc, rc: resp.Body, ctx: ctx, stop: stop,
		keep: !resp.Close && !req.Close && resp.StatusCode != http.StatusSwitchingProtocols}
	if resp.Body == http.NoBody {
		b.eof = true
	}
	resp.Body = b
	return resp, nil
}

func (c *Client) dial(ctx context.Context, addr string) (net.Conn, error) {
	if dl, ok := ctx.Deadline(); ok {
		// A context of its own, whose Done closes at the deadline.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl)
		defer cancel()
	}
	if c.Dial != nil {
		return c.Dial(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// longAgo is a deadline in the past: it ends every wait at once.
var longAgo = time.Unix(1, 0)

// withCause puts the context's error first when the context ended the
// wait.
func withCause(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w (%w)", ctxErr, err)
	}
	return err
}

func newConn(nc net.Conn, addr string) *conn {
	lim := &headLimit{r: nc}
	cw := &countingWriter{w: nc}
	return &conn{nc: nc, addr: addr, lim: lim, br: bufio.NewReaderSize(lim, 16<<10), cw: cw, bw: bufio.NewWriter(cw)}
}

// countingWriter counts the bytes the connection took.
type countingWriter struct {
	w io.Writer
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += int64(n)
	return n, err
}

// takeIdle returns an idle connection to addr that nothing waits on, or
// nil.
func (c *Client) takeIdle(addr string) *conn {
	for {
		c.mu.Lock()
		list := c.idle[addr]
		if len(list) == 0 {
			c.mu.Unlock()
			return nil
		}
		pc := list[len(list)-1]
		list[len(list)-1] = nil
		c.idle[addr] = list[:len(list)-1]
		c.mu.Unlock()
		pc.idleTimer.Stop()
		if pc.br.Buffered() == 0 && !pending(pc.nc) {
			pc.reused = true
			return pc
		}
		// Closed by the server, or it sent what nobody asked for.
		_ = pc.nc.Close()
	}
}

// putIdle keeps pc for the next request to its address, or closes it.
func (c *Client) putIdle(pc *conn) {
	if pc.nc.SetDeadline(time.Time{}) != nil {
		_ = pc.nc.Close()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.idle[pc.addr]) >= c.maxIdle() {
		_ = pc.nc.Close()
		return
	}
	if c.idle == nil {
		c.idle = map[string][]*conn{}
	}
	c.idle[pc.addr] = append(c.idle[pc.addr], pc)
	timeout := c.IdleTimeout
	if timeout <= 0 {
		timeout = DefaultIdleTimeout
	}
	if pc.idleTimer == nil {
		pc.idleTimer = time.AfterFunc(timeout, func() { c.expire(pc) })
	} else {
		pc.idleTimer.Reset(timeout)
	}
}

func (c *Client) maxIdle() int {
	if c.MaxIdle > 0 {
		return c.MaxIdle
	}
	return DefaultMaxIdle
}

// expire closes pc if it is still idle.
func (c *Client) expire(pc *conn) {
	c.mu.Lock()
	list := c.idle[pc.addr]
	found := false
	for i, x := range list {
		if x == pc {
			c.idle[pc.addr] = append(list[:i:i], list[i+1:]...)
			found = true
			break
		}
	}
	c.mu.Unlock()
	if found {
		_ = pc.nc.Close()
	}
}

// CloseIdle closes every idle connection. Connections in use are closed
// or kept when their reply has been read, as usual.
func (c *Client) CloseIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, list := range idle {
		for _, pc := range list {
			pc.idleTimer.Stop()
			_ = pc.nc.Close()
		}
	}
}

// Close closes every idle connection, and every connection in use once
// its reply has been read: none is kept any more.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.CloseIdle()
}

// body is a reply's body; closing it returns the connection to the idle
// ones when the body was read to its end, and closes it otherwise.
type body struct {
	c    *Client
	pc   *conn
	rc   io.ReadCloser
	ctx  context.Context
	stop func() bool
	keep bool
	eof  bool
	once sync.Once
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.keep = false
		err = withCause(b.ctx, err)
	}
	return n, err
}

// Close implements io.Closer. It never reads what is left of the body.
func (b *body) Close() error {
	b.once.Do(func() {
		live := b.stop() // false: the context ended, the deadline is past
		if b.eof && b.keep && live && b.pc.br.Buffered() == 0 {
			_ = b.rc.Close() // at EOF: reads nothing more
			b.c.putIdle(b.pc)
			return
		}
		_ = b.pc.nc.Close()
	})
	return nil
}
