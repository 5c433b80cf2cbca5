package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/bubble"
	"github.com/idemcheck/idemcheck/internal/memnet"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// AttemptHeader carries the attempt id from the harness client to the
// Proxy, which strips it before forwarding.
const AttemptHeader = "Idemcheck-Attempt"

// Bounds on what the proxy holds in memory. A request comes from the
// harness itself; a reply comes from the target, whatever it sends.
const (
	// maxBody bounds a request's body.
	maxBody = 8 << 20
	// MaxReplyBody is how much of a reply's body the proxy keeps and passes
	// on. The rest is read and counted, not kept: the Report says the body
	// was cut and how much arrived.
	MaxReplyBody = 1 << 20
	// maxDrain bounds how much of an over-long reply is read to count it:
	// enough to tell a large reply from an endless one.
	maxDrain = 64 << 20
	// The count takes at most a quarter of the time left before the
	// forward's deadline (drainShare), or drainTime when it has none. The
	// reply is cut once it is over MaxReplyBody, however the count ends
	// (its bound, its time, a read that fails): an endless reply is
	// reported as cut well before the client's own timeout on every
	// machine, never as a timeout on one too slow to count maxDrain bytes
	// in time.
	drainShare = 4
	drainTime  = 10 * time.Second
)

// CutHeader is set on a reply the proxy passes on cut, to the number of
// body bytes that arrived from the target.
const CutHeader = "Idemcheck-Reply-Cut"

// ProxyErrorHeader is set on the 502 the proxy answers when it could not
// forward a request (nothing answered, the TLS handshake failed): its
// body, "idemcheck proxy: " and the reason, is the proxy's, not the
// target's.
const ProxyErrorHeader = "Idemcheck-Proxy-Error"

// ProxyErrorPrefix begins the body of the 502 the proxy answers itself
// (see ProxyErrorHeader).
const ProxyErrorPrefix = "idemcheck proxy: "

// Report says what the proxy did with one attempt.
type Report struct {
	// Forwarded is true when the request was sent on to the target.
	Forwarded bool `json:"forwarded"`
	// Withheld is true when the target replied but the client did not get
	// that reply (it got another, or a reset): the outcome is unknown to
	// the client although the target finished.
	Withheld bool `json:"withheld,omitempty"`
	// UpstreamStatus is the target's status, 0 if none arrived.
	UpstreamStatus int `json:"upstream_status,omitempty"`
	// UpstreamError says why the target did not reply, or, when
	// BodyUnfinished, why its reply's body did not arrive whole.
	UpstreamError string `json:"upstream_error,omitempty"`
	// TimedOut is true when that was because the forward timeout passed
	// (no reply, or a reply whose body did not end in time).
	TimedOut bool `json:"timed_out,omitempty"`
	// Refused is true when the target could not be reached at all.
	Refused bool `json:"refused,omitempty"`
	// Cut is true when the target's reply body was longer than
	// MaxReplyBody: only its start was kept and passed on.
	Cut bool `json:"cut,omitempty"`
	// ReplyBytes is how many body bytes arrived from the target when Cut,
	// counted up to maxDrain and for a bounded time (see countRest): at
	// least that many.
	ReplyBytes int64 `json:"reply_bytes,omitempty"`
	// HeaderTooLarge is true when the target's reply had a header section
	// over MaxReplyHeaderBytes or MaxReplyHeaderLines: it was not read
	// further, and UpstreamError says which cap it went over.
	HeaderTooLarge bool `json:"header_too_large,omitempty"`
	// BodyUnfinished is true when the target's status and header arrived
	// (UpstreamStatus) but its body did not arrive whole (the forward
	// timeout passed while it was read, or the connection failed):
	// UpstreamError says how.
	BodyUnfinished bool `json:"body_unfinished,omitempty"`
}

// Caps on the header section of a reply, wherever idemcheck reads one
// from a target (the proxy, a burst): a reply over them is an error that
// says so, and no more than the caps is held in memory for it.
const (
	MaxReplyHeaderBytes = oncehttp.MaxHeaderBytes
	MaxReplyHeaderLines = oncehttp.MaxHeaderLines
)

// Proxy is a real HTTP reverse proxy on loopback that applies the
// ProxyFault armed for each attempt. Requests without an armed fault pass
// through unchanged.
//
// It listens on a loopback port and also in memory at the same address
// (see internal/memnet): idemcheck's own clients reach it without a
// socket. It forwards over connections it keeps alive, through a client
// that never sends a request twice (internal/oncehttp), and reaches in
// memory a target served in this process.
type Proxy struct {
	target  *url.URL
	ln      net.Listener
	mem     *memnet.Listener
	timeout time.Duration
	client  *oncehttp.Client
	// ctx is cancelled when Close gives up waiting: it ends the forwards
	// bound to their client still in progress (the others, the client's
	// Abort).
	ctx    context.Context
	cancel context.CancelFunc

	// conns are the client connections being served (see proxy_conn.go).
	conns connSet
	// wire is how requests passed through are written in wire form to
	// the target (see proxy_wire.go); nil when they cannot be.
	wire *wireTarget

	mu      sync.Mutex
	pending map[string]*pending
	closed  bool
}

// pending is an attempt the proxy expects: its fault, and its report once
// the exchange is over.
type pending struct {
	fault   ProxyFault
	done    chan struct{}
	report  Report
	claimed bool
}

// NewProxy starts a proxy on 127.0.0.1:0 in front of target (a base URL).
// forwardTimeout bounds each forwarded request (a hanging target); zero
// means 30s.
func NewProxy(target string, forwardTimeout time.Duration) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("fault proxy: target %q is not a base URL", target)
	}
	if forwardTimeout <= 0 {
		forwardTimeout = 30 * time.Second
	}
	ln, err := bubble.Listen("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	mem, err := memnet.Listen(ln.Addr().String())
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p := &Proxy{
		target:  u,
		ln:      ln,
		mem:     mem,
		timeout: forwardTimeout,
		client:  &oncehttp.Client{Dial: memnet.DialContext},
		pending: map[string]*pending{},
	}
	p.wire = newWireTarget(u)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.conns.serve(p, ln)
	p.conns.serve(p, mem)
	return p, nil
}

// URL is the proxy's base URL; send requests here instead of the target.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Arm announces the attempt with id and the fault to apply to it (nil for
// none). Only announced attempts get a Report.
func (p *Proxy) Arm(id string, f ProxyFault) {
	p.mu.Lock()
	p.pending[id] = &pending{fault: f, done: make(chan struct{})}
	p.mu.Unlock()
}

// Forget drops the attempt with id, armed but never sent: should a
// request carrying its id arrive after all, it passes through unreported.
func (p *Proxy) Forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// Report waits (up to wait, or until ctx is done) until the exchange of attempt id is over and
// returns, and forgets, what the proxy did with it. ok is false when the
// attempt was not armed or never reached the proxy in time.
func (p *Proxy) Report(ctx context.Context, id string, wait time.Duration) (r Report, ok bool) {
	p.mu.Lock()
	pe := p.pending[id]
	p.mu.Unlock()
	if pe == nil {
		return Report{}, false
	}
	defer func() {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
	}()
	select {
	case <-pe.done: // most often over already: no timer
		return pe.report, true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-pe.done:
		return pe.report, true
	case <-t.C:
		return Report{}, false
	case <-ctx.Done():
		return Report{}, false
	}
}

// closeWait is how long Close waits for the exchanges in progress.
var closeWait = 5 * time.Second

// Close stops the proxy, waiting up to 5s for exchanges in progress, then
// closes its connections to the target: the proxy closes them, not the
// target, so that their TIME_WAIT is the proxy's.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	_ = p.ln.Close()
	_ = p.mem.Close()
	err := p.conns.close(closeWait, func() {
		p.cancel()
		p.client.Abort()
	})
	p.client.Close()
	return err
}

// ServeHTTP implements http.Handler: the proxy's exchanges served by
// another server. (The proxy serves its own listeners itself, see
// proxy_conn.go.)
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.handle(r, &handlerSide{w: w, r: r})
}

// handle runs one exchange: the fault armed for its attempt, or a plain
// pass-through.
func (p *Proxy) handle(r *http.Request, client clientSide) {
	id := r.Header.Get(AttemptHeader)
	r.Header.Del(AttemptHeader)
	p.mu.Lock()
	pe := p.pending[id]
	if pe != nil {
		if pe.claimed {
			pe = nil // the same attempt id again: pass it through, unreported
		} else {
			pe.claimed = true
		}
	}
	p.mu.Unlock()

	ex := &exchange{p: p, r: r, client: client}
	if pe != nil {
		defer func() {
			pe.report = ex.report
			close(pe.done)
		}()
	}
	if pe == nil || pe.fault == nil {
		passThrough(ex)
		return
	}
	pe.fault.Intercept(ex)
	if !ex.answered {
		// A fault that forgot to answer must not leave the client hanging.
		ex.Reset()
	}
}

func passThrough(ex *exchange) {
	up, err := ex.Forward()
	if err != nil {
		status, h, body := proxyError(err)
		ex.Respond(status, h, body)
		return
	}
	ex.Respond(up.Status, up.Header, up.Body)
}

// proxyError is the proxy's own answer to a request it could not
// forward: a 502 that says why, marked with ProxyErrorHeader.
func proxyError(err error) (int, http.Header, []byte) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set(ProxyErrorHeader, "1")
	return http.StatusBadGateway, h, []byte(ProxyErrorPrefix + err.Error())
}

// clientSide is the client's end of an exchange: how to answer it, reset
// it, and learn that it went away.
type clientSide interface {
	respond(status int, header http.Header, body []byte)
	reset()
	// gone is closed when the client has gone away.
	gone() <-chan struct{}
	// context is cancelled when the client has gone away.
	context() context.Context
}

// handlerSide is the client's end of an exchange served by net/http.
type handlerSide struct {
	w http.ResponseWriter
	r *http.Request
}

func (h *handlerSide) respond(status int, header http.Header, body []byte) {
	for k, v := range header {
		h.w.Header()[k] = v
	}
	h.w.WriteHeader(status)
	_, _ = h.w.Write(body)
}

func (h *handlerSide) reset() {
	hj, ok := h.w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	resetConn(conn)
}

func (h *handlerSide) gone() <-chan struct{} { return h.r.Context().Done() }

func (h *handlerSide) context() context.Context { return h.r.Context() }

// resetConn ends c with a reset, not an orderly close: on TCP and in
// memory alike.
func resetConn(c net.Conn) {
	if l, ok := c.(interface{ SetLinger(int) error }); ok {
		_ = l.SetLinger(0)
	}
	_ = c.Close()
}

type exchange struct {
	p        *Proxy
	r        *http.Request
	client   clientSide
	up       *Upstream
	fwdDone  bool
	answered bool
	report   Report
}

func (ex *exchange) Request() *http.Request { return ex.r }

func (ex *exchange) ClientGone() <-chan struct{} { return ex.client.gone() }

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (ex *exchange) Forward() (*Upstream, error) { return ex.forward(false) }

// ForwardBound implements BoundForwarder: Forward, cancelled when the
// client goes away.
func (ex *exchange) ForwardBound() (*Upstream, error) { return ex.forward(true) }

func (ex *exchange) forward(bound bool) (*Upstream, error) {
	if ex.fwdDone {
		if ex.up == nil {
			return nil, errors.New("already forwarded")
		}
		return ex.up, nil
	}
	ex.fwdDone = true
	var body []byte
	if hb, ok := ex.r.Body.(*oncehttp.HeldBody); ok {
		body = hb.Rest() // read whole already: no copy
	} else if ex.r.Body != nil {
		var err error
		body, err = oncehttp.ReadAll(ex.r.Body, ex.r.ContentLength, maxBody+1)
		if err != nil {
			return nil, fmt.Errorf("reading the client's request: %w", err)
		}
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("the request body is larger than %d MiB, which the fault proxy does not forward", maxBody>>20)
	}
	// The target must not see the client give up: it runs to the end;
	// unless asked (ClientDisconnect), when it sees the client leave.
	var ctx context.Context
	if bound {
		c, cancel := context.WithTimeout(ex.client.context(), ex.p.timeout)
		defer cancel()
		ctx = c
	} else {
		ctx = &deadlineCtx{Context: context.Background(), deadline: time.Now().Add(ex.p.timeout)}
	}
	out, err := ex.outgoing(body)
	if err != nil {
		return nil, err
	}
	resp, err := ex.p.client.DoContext(ctx, out, false)
	return ex.upstream(ctx, resp, err)
}

// upstream notes in the report what forwarding the exchange's request
// brought back, a reply or err, and returns the reply as it is passed on.
func (ex *exchange) upstream(ctx context.Context, resp *http.Response, err error) (*Upstream, error) {
	if err != nil {
		if oncehttp.Dialed(err) {
			ex.report.Forwarded = true
		} else {
			ex.report.Refused = true
		}
		ex.report.UpstreamError = err.Error()
		ex.report.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		if errors.Is(err, oncehttp.ErrHeaderTooLarge) {
			ex.report.HeaderTooLarge = true
			ex.report.UpstreamError = fmt.Sprintf("the reply's header section is larger than idemcheck reads (%d KiB, %d lines): %v", MaxReplyHeaderBytes>>10, MaxReplyHeaderLines, err)
		}
		return nil, err
	}
	ex.report.Forwarded = true
	defer resp.Body.Close()
	rb, err := oncehttp.ReadAll(resp.Body, resp.ContentLength, MaxReplyBody+1)
	if err == nil && len(rb) > MaxReplyBody {
		// Counted, not kept: a hostile target cannot fill the memory.
		rest := countRest(ctx, resp.Body)
		ex.report.Cut = true
		ex.report.ReplyBytes = int64(len(rb)) + rest
		rb = rb[:MaxReplyBody]
	}
	if err != nil {
		ex.report.UpstreamError = "reading the reply: " + err.Error()
		ex.report.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		ex.report.BodyUnfinished = true
		ex.report.UpstreamStatus = resp.StatusCode
		return nil, err
	}
	ex.report.UpstreamStatus = resp.StatusCode
	// The reply's header is the proxy's own: changed in place.
	h := resp.Header
	for _, k := range hopHeaders {
		delete(h, k)
	}
	delete(h, "Content-Length")
	if ex.report.Cut {
		h.Set(CutHeader, strconv.FormatInt(ex.report.ReplyBytes, 10))
	}
	ex.up = &Upstream{Status: resp.StatusCode, Header: h, Body: rb}
	return ex.up, nil
}

// deadlineCtx is a forward's context when the client's leaving does not
// end the forward: a deadline, without a timer of its own and without a
// Done channel (a context.WithTimeout per forward costs a timer and a
// registration in the proxy's context). It is given to the oncehttp
// client only, which sets the deadline on the connection and watches
// nothing else for it: Close ends such forwards with the client's Abort.
type deadlineCtx struct {
	context.Context // context.Background(): its values, none
	deadline        time.Time
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Done() <-chan struct{} { return nil }

func (c *deadlineCtx) Err() error {
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// outgoing is the request forwarded to the target: the client's, its
// escaped path kept as the client wrote it (a%2Fb stays one segment), its
// header without the hop-by-hop fields (the client's own header, which
// nothing changes while it is forwarded, when it has none).
func (ex *exchange) outgoing(body []byte) (*http.Request, error) {
	t := ex.p.target
	path := strings.TrimSuffix(t.EscapedPath(), "/") + ex.r.URL.EscapedPath()
	var u *url.URL
	if strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "//") {
		// Written as it is (see url.URL.RequestURI), not parsed again.
		u = &url.URL{Scheme: t.Scheme, Host: t.Host, Opaque: path, RawQuery: ex.r.URL.RawQuery}
	} else {
		target := t.Scheme + "://" + t.Host + path
		if ex.r.URL.RawQuery != "" {
			target += "?" + ex.r.URL.RawQuery
		}
		var err error
		if u, err = url.Parse(target); err != nil {
			return nil, err
		}
	}
	out := &http.Request{
		Method:     ex.r.Method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     withoutHop(ex.r.Header),
		Body:       http.NoBody,
		Host:       strings.TrimSuffix(u.Host, ":"),
	}
	if out.Method == "" {
		out.Method = http.MethodGet
	}
	if !oncehttp.ValidHeaderName(out.Method) {
		return nil, fmt.Errorf("net/http: invalid method %q", out.Method)
	}
	if len(body) > 0 {
		out.ContentLength = int64(len(body))
		// Held whole: written as it is, and again if it must go out on a
		// new connection (when not a byte of it went out).
		out.Body = oncehttp.BytesBody(body)
	}
	return out, nil
}

// withoutHop returns h when it holds no hop-by-hop field, and a copy
// without them otherwise.
func withoutHop(h http.Header) http.Header {
	for k := range h {
		if hopHeader(k) {
			return cloneWithoutHop(h)
		}
	}
	return h
}

// cloneWithoutHop copies h without its hop-by-hop fields, its values in
// one allocation as http.Header.Clone does.
func cloneWithoutHop(h http.Header) http.Header {
	nv := 0
	for _, vv := range h {
		nv += len(vv)
	}
	sv := make([]string, nv)
	h2 := make(http.Header, len(h))
	for k, vv := range h {
		if hopHeader(k) {
			continue
		}
		if vv == nil {
			h2[k] = nil
			continue
		}
		n := copy(sv, vv)
		h2[k] = sv[:n:n]
		sv = sv[n:]
	}
	return h2
}

// hopHeader says whether k is one of hopHeaders.
func hopHeader(k string) bool {
	switch k {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// countRest reads what is left of an over-long reply's body, keeping
// none of it, and returns how much arrived: up to maxDrain bytes, for at
// most a quarter of the time left before ctx's deadline (drainShare).
// The body is closed when that time is up, which ends a read under way;
// a read that fails ends the count too. The reply is cut either way.
func countRest(ctx context.Context, body io.ReadCloser) int64 {
	budget := drainTime
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl) / drainShare
	}
	stop := time.AfterFunc(max(budget, 0), func() { _ = body.Close() })
	defer stop.Stop()
	return discard(io.LimitReader(body, maxDrain))
}

// discard reads r to its end or its first error, in large reads (fewer
// system calls than io.Discard's), and returns how many bytes it read.
func discard(r io.Reader) int64 {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}

func (ex *exchange) Respond(status int, header http.Header, body []byte) {
	if ex.answered {
		return
	}
	ex.answered = true
	if ex.up != nil && (status != ex.up.Status || !bytes.Equal(body, ex.up.Body)) {
		ex.report.Withheld = true
	}
	ex.client.respond(status, header, body)
}

func (ex *exchange) Reset() {
	if ex.answered {
		return
	}
	ex.answered = true
	if ex.up != nil {
		ex.report.Withheld = true
	}
	ex.client.reset()
}
