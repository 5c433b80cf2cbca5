package oncehttp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
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

// Client sends HTTP/1.1 requests (http://, and https:// over TLS), each
// at most once. The zero value is usable; a Client is safe for
// concurrent use.
type Client struct {
	// Dial opens a connection to addr (host:port); nil dials TCP. For an
	// https:// URL, TLS is spoken over the connection it opens.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLS configures the connections of https:// URLs; nil verifies the
	// server against the system's roots (which SSL_CERT_FILE and
	// SSL_CERT_DIR can name). Its ServerName, when empty, is the URL's
	// host; only HTTP/1.1 is offered.
	TLS *tls.Config
	// IdleTimeout is how long an idle connection is kept open
	// (DefaultIdleTimeout when zero).
	IdleTimeout time.Duration
	// MaxIdle is how many idle connections are kept per address
	// (DefaultMaxIdle when zero).
	MaxIdle int

	mu     sync.Mutex
	idle   map[string][]*conn
	closed bool

	// aborted is set by Abort; abortCtx, made with the first connection,
	// is cancelled by it, and each connection watches it (once for its
	// whole life, not once per request).
	aborted     atomic.Bool
	abortCtx    context.Context
	abortCancel context.CancelFunc
}

// ErrAborted is the cause of a request that Client.Abort ended.
var ErrAborted = errors.New("oncehttp: the client was aborted")

// Abort ends every request in progress at once, and fails every request
// after: the connections' deadlines are set in the past and the dials
// under way are cancelled. A request whose context has no Done channel
// (a deadline only, never cancelled) costs the client no watch of its
// own: Abort is what ends it early.
func (c *Client) Abort() {
	c.mu.Lock()
	c.aborted.Store(true)
	cancel := c.abortCancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// abortContext is the context Abort cancels.
func (c *Client) abortContext() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.abortCtx == nil {
		c.abortCtx, c.abortCancel = context.WithCancel(context.Background())
		if c.aborted.Load() {
			c.abortCancel()
		}
	}
	return c.abortCtx
}

// alwaysLive is the stop of a request whose context never ends: its
// deadline is on the connection.
func alwaysLive() bool { return true }

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
	// wire holds the replies read in wire form (see DoWire).
	wire *PlainHead
	// unwatch ends the connection's watch of Client.Abort.
	unwatch func() bool
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
	return c.DoContext(req.Context(), req, fresh)
}

// DoContext is Do under ctx rather than req's context: a request need
// not be copied to carry it.
func (c *Client) DoContext(ctx context.Context, req *http.Request, fresh bool) (*http.Response, error) {
	if req.URL == nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, fmt.Errorf("oncehttp: expected an http:// or https:// URL with a host, got %v", req.URL)
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "dial", Err: err}
	}
	if c.aborted.Load() {
		return nil, &Error{Op: "dial", Err: ErrAborted}
	}
	addr := destination(req.URL)
	held, _ := req.Body.(*HeldBody)
	var start int // where the held body's bytes to send begin
	if held != nil {
		start = held.off
	}
	resp, err := c.send(ctx, &outbound{req: req}, addr, fresh)
	if c.again(ctx, err) {
		again := req
		if req.Body != nil && req.Body != http.NoBody {
			var body io.ReadCloser
			if held != nil {
				body = BytesBody(held.b[start:])
			} else {
				if req.GetBody == nil {
					return nil, err
				}
				var gerr error
				if body, gerr = req.GetBody(); gerr != nil {
					return nil, err
				}
			}
			r := *req
			r.Body = body
			again = &r
		}
		return c.send(ctx, &outbound{req: again}, addr, true)
	}
	return resp, err
}

// again says whether a request that failed with err goes out again on a
// new connection: not a byte of it reached the server (which closed the
// idle connection as the request went out), so that sending it again
// cannot make a duplicate.
func (c *Client) again(ctx context.Context, err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Op == "write" && e.Reused && e.nothing && ctx.Err() == nil && !c.aborted.Load()
}

// DoWire sends a request in wire form to u's host (http:// or https://),
// once, as DoContext sends one: head is its header section, as
// AppendRequest writes it, and body its body. A reply that comes whole
// with its first bytes, plain, with a Content-Length of at most limit
// and whose field names are canonical (see wire.go) is given to reply,
// whose spans hold only during the call, and DoWire returns no reply
// and no error; the connection is then kept for the next request or
// closed, as the reply's Close would have done. Any other reply is
// returned as DoContext returns it, its Request nil; a failure is the
// same *Error.
func (c *Client) DoWire(ctx context.Context, u *url.URL, head, body []byte, limit int64, reply func(code int, h *PlainHead, body []byte)) (*http.Response, error) {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("oncehttp: expected an http:// or https:// URL with a host, got %v", u)
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "dial", Err: err}
	}
	if c.aborted.Load() {
		return nil, &Error{Op: "dial", Err: ErrAborted}
	}
	addr := destination(u)
	o := outbound{head: head, body: body, limit: limit, reply: reply}
	resp, err := c.send(ctx, &o, addr, false)
	if c.again(ctx, err) {
		return c.send(ctx, &o, addr, true)
	}
	return resp, err
}

// outbound is a request to send: req, or its wire form (head and body,
// and reply for the replies read in wire form).
type outbound struct {
	req        *http.Request
	head, body []byte
	limit      int64
	reply      func(code int, h *PlainHead, body []byte)
}

// BytesBody is a request body held whole in memory, for Do: it is
// written as it is, and written again, without GetBody, should the
// request have to go out on a new connection.
func BytesBody(b []byte) *HeldBody { return &HeldBody{b: b} }

// HeldBody is a body held whole in memory (see BytesBody).
type HeldBody struct {
	b   []byte
	off int
}

// Read implements io.Reader.
func (h *HeldBody) Read(p []byte) (int, error) {
	if h.off >= len(h.b) {
		return 0, io.EOF
	}
	n := copy(p, h.b[h.off:])
	h.off += n
	return n, nil
}

// Close implements io.Closer.
func (h *HeldBody) Close() error { return nil }

// Rest returns what is left to read, and reads it: no copy.
func (h *HeldBody) Rest() []byte {
	b := h.b[h.off:]
	h.off = len(h.b)
	return b
}

// send is Do, or DoWire, on one connection.
func (c *Client) send(ctx context.Context, o *outbound, addr string, fresh bool) (*http.Response, error) {
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
		pc.unwatch = context.AfterFunc(c.abortContext(), func() { _ = nc.SetDeadline(longAgo) })
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = pc.nc.SetDeadline(dl)
	}
	stop := alwaysLive
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = pc.nc.SetDeadline(longAgo) })
	}
	written := pc.cw.n
	fail := func(op string, err error) (*http.Response, error) {
		stop()
		nothing := pc.cw.n == written
		pc.close()
		if c.aborted.Load() && !errors.Is(err, ErrAborted) {
			err = fmt.Errorf("%w (%w)", ErrAborted, err)
		}
		return nil, &Error{Op: op, Reused: pc.reused, Err: withCause(ctx, err), nothing: nothing}
	}
	err := ctx.Err() // a connection that came after the context ended carries nothing
	if err == nil && c.aborted.Load() {
		// Checked after the deadline was set: an Abort that came before
		// it is seen here, one that comes after sets its own.
		err = ErrAborted
	}
	if err == nil {
		if o.req != nil {
			err = writeRequest(pc.bw, o.req)
		} else if _, err = pc.bw.Write(o.head); err == nil {
			_, err = pc.bw.Write(o.body)
		}
	}
	if err == nil {
		err = pc.bw.Flush()
	}
	if err != nil {
		return fail("write", err)
	}
	var wire func(*bufio.Reader) bool
	if o.reply != nil {
		wire = func(br *bufio.Reader) bool {
			b, _ := br.Peek(br.Buffered())
			if pc.wire == nil {
				pc.wire = new(PlainHead)
			}
			h := pc.wire
			code, ok := h.scanReply(b, o.limit)
			if !ok {
				return false
			}
			o.reply(code, h, b[h.Size:h.Size+int(h.Length)])
			_, _ = br.Discard(h.Size + int(h.Length))
			return true
		}
	}
	resp, err := readFinal(pc.br, pc.lim, o.req, wire)
	if err != nil {
		return fail("read", err)
	}
	if resp == nil {
		// Taken in wire form, body and all: kept as body.Close keeps a
		// connection whose reply was read to its end.
		if stop() && pc.br.Buffered() == 0 {
			if !c.putIdle(pc) {
				pc.release()
			}
		} else {
			pc.close()
		}
		return nil, nil
	}
	b := &body{c: c, pc: pc, rc: resp.Body, ctx: ctx, stop: stop,
		keep: !resp.Close && (o.req == nil || !o.req.Close) && resp.StatusCode != http.StatusSwitchingProtocols}
	if resp.Body == http.NoBody {
		b.eof = true
	}
	resp.Body = b
	return resp, nil
}

func (c *Client) dial(ctx context.Context, dest string) (net.Conn, error) {
	// A context of its own, whose Done closes at the deadline, or when
	// the client is aborted.
	var cancel context.CancelFunc
	if dl, ok := ctx.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, dl)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	defer context.AfterFunc(c.abortContext(), cancel)()
	addr, secure := strings.CutPrefix(dest, tlsPrefix)
	var nc net.Conn
	var err error
	if c.Dial != nil {
		nc, err = c.Dial(ctx, "tcp", addr)
	} else {
		var d net.Dialer
		nc, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil || !secure {
		return nc, err
	}
	tc := tls.Client(nc, TLSConfig(c.TLS, addr))
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
	}
	return tc, nil
}

// tlsPrefix marks a destination spoken to over TLS (see destination).
const tlsPrefix = "tls "

// destination is where a request to u goes: host:port, the scheme's
// port when u names none, with tlsPrefix for https (the idle connections
// of the two are kept apart).
func destination(u *url.URL) string {
	if u.Scheme == "https" {
		return tlsPrefix + Address(u)
	}
	return Address(u)
}

// Address is the host:port an http:// or https:// URL names: its port,
// or the scheme's (80, 443) when it names none.
func Address(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// TLSConfig is base (nil: the system's roots) for a connection to addr
// (host:port): its ServerName, when empty, is addr's host, and it offers
// only HTTP/1.1, which is all idemcheck speaks.
func TLSConfig(base *tls.Config, addr string) *tls.Config {
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	return cfg
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

// Buffers of the connections closed, for the next ones: a fault that
// needs a connection of its own for every request does not cost 20 KiB
// of fresh memory each time.
var (
	readerPool sync.Pool // of *bufio.Reader, readerSize
	writerPool sync.Pool // of *bufio.Writer
)

// readerSize is the size of a connection's read buffer.
const readerSize = 16 << 10

func newConn(nc net.Conn, addr string) *conn {
	lim := &headLimit{r: nc}
	cw := &countingWriter{w: nc}
	br, _ := readerPool.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(lim, readerSize)
	} else {
		br.Reset(lim)
	}
	bw, _ := writerPool.Get().(*bufio.Writer)
	if bw == nil {
		bw = bufio.NewWriter(cw)
	} else {
		bw.Reset(cw)
	}
	return &conn{nc: nc, addr: addr, lim: lim, br: br, cw: cw, bw: bw}
}

// close closes the connection and gives its buffers back: nothing may
// read or write through pc after.
func (pc *conn) close() {
	pc.closeNet()
	pc.release()
}

// closeNet closes the network connection, and ends its watch of Abort.
func (pc *conn) closeNet() {
	_ = pc.nc.Close()
	if pc.unwatch != nil {
		pc.unwatch()
	}
}

// release gives the connection's buffers back, once.
func (pc *conn) release() {
	if pc.br == nil {
		return
	}
	pc.br.Reset(nil)
	pc.bw.Reset(nil)
	readerPool.Put(pc.br)
	writerPool.Put(pc.bw)
	pc.br, pc.bw = nil, nil
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
		pc.close()
	}
}

// putIdle keeps pc for the next request to its address, or closes it
// (without giving its buffers back) and returns false.
func (c *Client) putIdle(pc *conn) bool {
	// Cleared: a deadline that passes while the connection is idle would
	// fail the check before its reuse (pending).
	if pc.nc.SetDeadline(time.Time{}) != nil {
		pc.closeNet()
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.idle[pc.addr]) >= c.maxIdle() {
		pc.closeNet()
		return false
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
	return true
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
		pc.close()
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
			// Stopped before expire ran, or expire finds it gone: either
			// way only this closes it.
			pc.idleTimer.Stop()
			pc.close()
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
	once sync.Once

	mu   sync.Mutex
	keep bool
	eof  bool
	// reading: a Read is under way. A flag, not a count: reads of one
	// body do not overlap (io.Reader promises nothing to those that do).
	reading bool
	closed  bool
}

// errClosedBody is the error of a read after Close.
var errClosedBody = errors.New("oncehttp: read on a closed body")

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, errClosedBody
	}
	b.reading = true
	b.mu.Unlock()
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.reading = false
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.keep = false
		err = withCause(b.ctx, err)
	}
	// Closed while this read was under way: the connection is closed,
	// and its buffers were left for this read to give back.
	release := b.closed
	b.mu.Unlock()
	if release {
		b.pc.release()
	}
	return n, err
}

// Close implements io.Closer. It never reads what is left of the body.
// A read under way ends with the connection closed under it.
func (b *body) Close() error {
	b.once.Do(func() {
		live := b.stop() // false: the context ended, the deadline is past
		b.mu.Lock()
		defer b.mu.Unlock()
		b.closed = true
		if !b.reading && b.eof && b.keep && live && b.pc.br.Buffered() == 0 {
			_ = b.rc.Close() // at EOF: reads nothing more
			if !b.c.putIdle(b.pc) {
				b.pc.release()
			}
			return
		}
		b.pc.closeNet()
		if !b.reading {
			b.pc.release()
		}
	})
	return nil
}
