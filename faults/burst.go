package faults

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/internal/memnet"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// BurstMode says how the copies of a Burst are delivered.
type BurstMode string

const (
	// Synchronized pre-opens every connection and writes all but the final
	// bytes of each request's header section first; the held-back bytes
	// (plus any body) are then written to every connection from one tight
	// loop, shared by one writer per processor (at most four). A server
	// starts its handler when the header section is complete, so handler
	// entry is aligned to within a few write system calls.
	Synchronized BurstMode = "synchronized"
	// Naive starts one goroutine per request, each dialing and writing its
	// whole request when the scheduler gets to it: what a client with N
	// concurrent workers does. It is the baseline Synchronized is measured
	// against.
	Naive BurstMode = "naive"
)

// Defaults of Burst.
const (
	// DefaultBurstN is how many copies a Burst sends when N is zero.
	DefaultBurstN = 20
	// DefaultBurstTimeout bounds a Burst when Timeout is zero.
	DefaultBurstTimeout = 10 * time.Second
	// MaxBurstReplyBody is how much of each reply's body a Burst keeps;
	// the rest is not read.
	MaxBurstReplyBody = 1 << 20
)

const (
	// burstInlineBody is how much of the request body is written in the
	// release loop together with the held-back header bytes. It fits in
	// an empty socket send buffer, so the release writes never block; a
	// larger body's remainder is written per connection after the
	// release, once the handlers have started.
	burstInlineBody = 8 << 10
	// burstHeldBack is how many bytes of the header section are held
	// back until the release: the empty line that ends it. The server has
	// then parsed every header line and waits for the next one.
	burstHeldBack = 2
	// burstMinSettle and burstMaxSettle bound the pause between the end
	// of the preparation and the release, which lets the server read the
	// partial requests and park its connection readers (and lets ours
	// park). The pause is the slowest dial, a round-trip estimate, within
	// these bounds.
	burstMinSettle = time.Millisecond
	burstMaxSettle = 250 * time.Millisecond
	// burstMaxWriters bounds how many goroutines write the release, and
	// burstWriterLead is how long before the release the helpers start:
	// enough for the scheduler to run them, not so long that they burn a
	// processor for nothing.
	burstMaxWriters = 4
	burstWriterLead = time.Millisecond
	// burstReadyWait bounds how long the release waits for helpers that
	// have not started yet; a late helper takes fewer connections.
	burstReadyWait = 200 * time.Microsecond
)

// BurstReply is what one copy of a burst got back.
type BurstReply struct {
	// Status is the reply's status code, 0 if no reply was read.
	Status int
	// Header is the reply's header, nil if no reply was read.
	Header http.Header
	// Body is the reply's body, at most MaxBurstReplyBody bytes of it.
	Body []byte
	// Cut is true when the body was longer than MaxBurstReplyBody: only
	// its start was kept, and the rest was not read. A cut reply is not a
	// clean one, whatever its status.
	Cut bool
	// Err is the connection or read error, if any: the copy's outcome is
	// then unknown (it may or may not have reached the handler). When the
	// status line was read before the error, Status and Header are set.
	Err error
	// Sent is when the write that completes the copy's header section
	// was issued: the server can start its handler from then on. It is
	// zero if that write failed. (A body larger than 8 KiB is finished
	// after it.)
	Sent time.Time
	// Received is when the reply was fully read (zero if it was not).
	Received time.Time
}

// Burst sends N copies of one request (same idempotency key, same
// payload) so that the target's handlers are entered as close to
// simultaneously as possible: the fault behind the concurrent.duplicates
// check. The zero value is usable.
type Burst struct {
	// N is how many copies are sent (default DefaultBurstN).
	N int
	// Mode is how they are delivered (default Synchronized).
	Mode BurstMode
	// Timeout is the deadline of the whole burst, from the call of Fire
	// to the last reply (default DefaultBurstTimeout).
	Timeout time.Duration
	// Hosts, when set, spreads the copies over several instances of the
	// target (host:port each, all serving the same state): copy i goes to
	// Hosts[i%len(Hosts)], with its own Host header, instead of to
	// req.URL.Host. The copies are still released together, so a lock
	// that each instance holds for itself is raced across instances.
	Hosts []string
	// TLS configures the connections of an https:// request (see
	// oncehttp.TLSConfig; nil verifies against the system's roots): each
	// copy's handshake is part of its preparation, before the release.
	TLS *tls.Config
	// Dial opens each copy's connection; nil dials TCP. (idemcheck
	// passes memnet.DialContext: a Go handler served in this process is
	// then reached in memory, anything else over TCP.)
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Fire sends b.N copies of req and returns one reply per copy, in request
// order. Each copy goes on its own new connection to req.URL.Host (over
// TLS for https, whose handshake is part of the copy's preparation; port
// 80 or 443 if none is given) and is written with a
// Content-Length, without Connection: close: Fire closes each connection
// once its reply is read, so that the connection's TIME_WAIT is on this
// side (a server that closes first leaves its own, and a later connection
// given the same client port then waits a second for its SYN to be sent
// again). The body is taken from req.GetBody when set,
// otherwise req.Body is read (and closed) once; req is not modified.
//
// A misbehaving server gives per-reply errors, never a panic; cancelling
// ctx ends every wait, and the replies not yet read carry the context's
// error. Every connection Fire opens is closed before it returns. The
// error is only for bad input (a nil request, a URL that is not http, a
// negative N or Timeout, an unknown Mode) or when not a single connection
// could be opened.
func (b Burst) Fire(ctx context.Context, req *http.Request) ([]BurstReply, error) {
	n, mode, timeout, err := b.settings()
	if err != nil {
		return nil, err
	}
	wires, err := b.wires(req)
	if err != nil {
		return nil, err
	}
	w := wires[0]
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	f := &firing{ctx: ctx, n: n, wire: w, wires: wires, deadline: deadline, replies: make([]BurstReply, n), dialer: b.Dial, tls: b.TLS}
	// A cancelled context expires every connection's deadline, which ends
	// every read and write at once.
	expired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		f.expire()
		close(expired)
	})
	defer func() {
		if !stop() {
			<-expired
		}
	}()
	if mode == Naive {
		f.naive()
	} else {
		f.synchronized()
	}
	if f.opened.Load() == 0 {
		return nil, fmt.Errorf("burst: could not open a single connection to %s: %w", b.addrs(wires), f.replies[0].Err)
	}
	for i := range f.replies {
		if err := f.replies[i].Err; err != nil {
			f.replies[i].Err = fmt.Errorf("burst copy %d of %d: %w", i+1, n, err)
		}
	}
	return f.replies, nil
}

// wires serialises req once per instance the copies go to: req.URL.Host,
// or each of b.Hosts.
func (b Burst) wires(req *http.Request) ([]*burstWire, error) {
	if len(b.Hosts) == 0 {
		w, err := newBurstWire(req)
		if err != nil {
			return nil, err
		}
		return []*burstWire{w}, nil
	}
	if req == nil || req.URL == nil {
		return nil, errors.New("burst: expected a request with a URL, got none")
	}
	body, err := burstBody(req)
	if err != nil {
		return nil, err
	}
	out := make([]*burstWire, 0, len(b.Hosts))
	for _, h := range b.Hosts {
		if h == "" {
			return nil, errors.New("burst: Hosts holds an empty host")
		}
		r := req.Clone(req.Context())
		u := *req.URL
		u.Host = h
		r.URL, r.Host = &u, ""
		r.Body, r.GetBody = http.NoBody, nil
		if len(body) > 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		w, err := newBurstWire(r)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

func (b Burst) addrs(wires []*burstWire) string {
	s := wires[0].addr
	for _, w := range wires[1:] {
		s += ", " + w.addr
	}
	return s
}

func (b Burst) settings() (n int, mode BurstMode, timeout time.Duration, err error) {
	n, mode, timeout = b.N, b.Mode, b.Timeout
	switch {
	case n < 0:
		return 0, "", 0, fmt.Errorf("burst: N must be positive (0 for %d), got %d", DefaultBurstN, n)
	case n == 0:
		n = DefaultBurstN
	}
	switch mode {
	case "":
		mode = Synchronized
	case Synchronized, Naive:
	default:
		return 0, "", 0, fmt.Errorf("burst: unknown mode %q (expected %q or %q)", mode, Synchronized, Naive)
	}
	switch {
	case timeout < 0:
		return 0, "", 0, fmt.Errorf("burst: Timeout must be positive (0 for %v), got %v", DefaultBurstTimeout, timeout)
	case timeout == 0:
		timeout = DefaultBurstTimeout
	}
	return n, mode, timeout, nil
}

// burstWire is the request serialised once, for every copy.
type burstWire struct {
	addr string
	// secure: the copies speak TLS (an https:// URL).
	secure bool
	// req is the request as written, for http.ReadResponse (which needs
	// its method).
	req *http.Request
	// all is the whole request, the concatenation of head, tail and rest:
	// head is written in the preparation, tail in the release loop, rest
	// (a large body's remainder) after the release.
	all, head, tail, rest []byte
}

func newBurstWire(req *http.Request) (*burstWire, error) {
	if req == nil {
		return nil, errors.New("burst: expected a request, got nil")
	}
	if req.URL == nil {
		return nil, errors.New("burst: expected a request with a URL, got none")
	}
	if (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, fmt.Errorf("burst: expected an http:// or https:// URL with a host, got %q", req.URL.Redacted())
	}
	body, err := burstBody(req)
	if err != nil {
		return nil, err
	}
	out := req.Clone(context.Background())
	out.Header.Del("Connection")
	out.Close = false
	out.TransferEncoding = nil
	out.Trailer = nil
	out.GetBody = nil
	out.ContentLength = int64(len(body))
	out.Body = http.NoBody
	if len(body) > 0 {
		out.Body = io.NopCloser(bytes.NewReader(body))
	}
	var buf bytes.Buffer
	if err := out.Write(&buf); err != nil {
		return nil, fmt.Errorf("burst: serialising the request: %w", err)
	}
	out.Body = http.NoBody
	raw := buf.Bytes()
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return nil, errors.New("burst: the serialised request has no end of header section")
	}
	end += 4 // first byte after the header section
	inline := min(len(raw), end+burstInlineBody)
	return &burstWire{
		addr:   oncehttp.Address(req.URL),
		secure: req.URL.Scheme == "https",
		req:    out,
		all:    raw,
		head:   raw[:end-burstHeldBack],
		tail:   raw[end-burstHeldBack : inline],
		rest:   raw[inline:],
	}, nil
}

// burstBody returns req's body without consuming it when req.GetBody can
// give a fresh copy.
func burstBody(req *http.Request) ([]byte, error) {
	rc := req.Body
	if req.GetBody != nil {
		var err error
		if rc, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("burst: getting the request body: %w", err)
		}
	}
	if rc == nil || rc == http.NoBody {
		return nil, nil
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("burst: reading the request body: %w", err)
	}
	return body, nil
}

// firing is one call of Fire in progress.
type firing struct {
	ctx  context.Context
	n    int
	wire *burstWire // the first of wires: what every copy shares
	// wires holds the request as written for each instance; copy i uses
	// wires[i%len(wires)]. Every wire has the same tail and rest (the
	// same body), so the release writes one tail to all.
	wires    []*burstWire
	deadline time.Time
	replies  []BurstReply
	opened   atomic.Int32
	// dialer is Burst.Dial.
	dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// tls is Burst.TLS.
	tls *tls.Config

	mu      sync.Mutex
	conns   []net.Conn
	expired bool
}

// track registers c so that cancellation reaches it, and sets its deadline.
func (f *firing) track(c net.Conn) {
	f.opened.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.conns = append(f.conns, c)
	if f.expired {
		_ = c.SetDeadline(time.Unix(1, 0))
		return
	}
	_ = c.SetDeadline(f.deadline)
}

// expire ends every wait on every connection, now and later.
func (f *firing) expire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expired = true
	for _, c := range f.conns {
		_ = c.SetDeadline(time.Unix(1, 0))
	}
}

// wireOf is the request as written for copy i.
func (f *firing) wireOf(i int) *burstWire { return f.wires[i%len(f.wires)] }

func (f *firing) dial(i int) (net.Conn, time.Duration, error) {
	start := time.Now()
	addr := f.wireOf(i).addr
	var c net.Conn
	var err error
	if f.dialer != nil {
		ctx, cancel := context.WithDeadline(f.ctx, f.deadline)
		c, err = f.dialer(ctx, "tcp", addr)
		cancel()
	} else {
		d := net.Dialer{Deadline: f.deadline}
		c, err = d.DialContext(f.ctx, "tcp", addr)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("dialing %s: %w", addr, f.cause(err))
	}
	if f.wireOf(i).secure {
		tc := tls.Client(c, oncehttp.TLSConfig(f.tls, addr))
		_ = c.SetDeadline(f.deadline)
		if err := tc.HandshakeContext(f.ctx); err != nil {
			_ = c.Close()
			return nil, 0, fmt.Errorf("TLS handshake with %s: %w", addr, f.cause(err))
		}
		c = tc
	}
	f.track(c)
	return c, time.Since(start), nil
}

// cause puts the context's error first when the context ended the wait.
func (f *firing) cause(err error) error {
	if ctxErr := f.ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%w (%w)", ctxErr, err)
	}
	return err
}

// fail records copy i's error (Fire names the copy once all are done).
func (f *firing) fail(i int, err error) { f.replies[i].Err = err }

// naive sends each copy from its own goroutine, dialing and writing as it
// is scheduled.
func (f *firing) naive() {
	var wg sync.WaitGroup
	for i := range f.n {
		wg.Go(func() {
			c, _, err := f.dial(i)
			if err != nil {
				f.fail(i, err)
				return
			}
			defer c.Close()
			sent := time.Now()
			if _, err := c.Write(f.wireOf(i).all); err != nil {
				f.fail(i, fmt.Errorf("writing the request: %w", f.cause(err)))
				return
			}
			f.replies[i].Sent = sent
			f.read(i, c, nil)
		})
	}
	wg.Wait()
}

// synchronized prepares every copy, then releases them together.
func (f *firing) synchronized() {
	// Preparation: dial and write the head of every copy, in parallel so
	// that a distant server costs one round trip, not N.
	conns := make([]net.Conn, f.n)
	rtt := make([]time.Duration, f.n)
	var prep sync.WaitGroup
	for i := range f.n {
		prep.Go(func() {
			c, took, err := f.dial(i)
			if err != nil {
				f.fail(i, err)
				return
			}
			rtt[i] = took
			if _, err := c.Write(f.wireOf(i).head); err != nil {
				f.fail(i, fmt.Errorf("writing the request's head: %w", f.cause(err)))
				_ = c.Close()
				return
			}
			conns[i] = c
		})
	}
	prep.Wait()
	live := make([]net.Conn, 0, f.n)
	index := make([]int, 0, f.n)
	settle := burstMinSettle
	for i, c := range conns {
		if c != nil {
			live = append(live, c)
			index = append(index, i)
			settle = max(settle, rtt[i])
		}
	}
	if len(live) == 0 {
		return
	}
	settle = min(settle, burstMaxSettle)

	// Readers wait for their reply from before the release, so that none
	// of them competes with the release or the server for a processor.
	var readers, ready sync.WaitGroup
	released := make(chan struct{})
	for k, c := range live {
		i := index[k]
		ready.Add(1)
		readers.Go(func() {
			defer c.Close()
			f.read(i, c, ready.Done)
		})
		if len(f.wire.rest) > 0 {
			readers.Go(func() {
				select {
				case <-released:
				case <-f.ctx.Done():
					return
				}
				// An error here shows up as the reader's error, or not at
				// all when the server answered without the whole body.
				_, _ = c.Write(f.wire.rest)
			})
		}
	}
	ready.Wait()

	// Let the server read the partial requests and park its readers, and
	// ours park in Read; the writers that help with the release start
	// spinning burstWriterLead before it.
	rel := newRelease(live, f.wire.tail)
	var sent []time.Time
	var errs []error
	if inMemory(live) {
		// The server is seen to park: the release comes once it has read
		// every copy's head and waits for the rest (or after settle, for
		// a server that reads no further). A write in memory is a copy
		// and a wake-up, no system call: one loop releases every copy
		// within microseconds, with no helper to start ahead and so no
		// lead to spin out.
		f.awaitParked(live, settle)
		sent, errs = rel.run()
	} else if f.pause(settle - burstWriterLead) {
		sent, errs = rel.run()
	} else {
		// One release spins at a time in this process: two bursts
		// spinning at once on a small machine starve each other's timers
		// and writers, and both lose their synchronization.
		held := false
		select {
		case releasing <- struct{}{}:
			held = true
		case <-f.ctx.Done():
		}
		rel.startHelpers(burstWriters(len(live)) - 1)
		// The release spins out the lead too, rather than park on a
		// timer: a spinning helper never enters the scheduler, and a
		// timer on its processor would fire only once the helper is
		// preempted, ~10ms later.
		for lead := time.Now().Add(min(settle, burstWriterLead)); time.Now().Before(lead) && f.ctx.Err() == nil; {
		}
		sent, errs = rel.run()
		if held {
			<-releasing
		}
	}
	close(released)
	readers.Wait()

	for k, i := range index {
		if errs[k] == nil {
			f.replies[i].Sent = sent[k]
		} else if readErr := f.replies[i].Err; readErr != nil {
			// The write's error is the cause; a reply read before it
			// (an early answer) stands without one.
			f.fail(i, fmt.Errorf("writing the request's tail: %w, then %w", f.cause(errs[k]), readErr))
		}
	}
}

// read reads copy i's reply from c into f.replies[i]. reading, if not
// nil, is called just before the first read. Informational replies (100
// Continue, 103 Early Hints) before the real one are skipped, and a
// header section over MaxReplyHeaderBytes or MaxReplyHeaderLines is an
// error: a burst of 200 copies holds 200 replies at once.
func (f *firing) read(i int, c net.Conn, reading func()) {
	if reading != nil {
		reading()
	}
	// One byte more than is kept tells a body of exactly the limit from a
	// longer one, without reading the rest.
	resp, body, err := oncehttp.ReadWholeReply(c, f.wire.req, MaxBurstReplyBody+1)
	r := &f.replies[i]
	if resp == nil {
		f.fail(i, fmt.Errorf("reading the reply: %w", f.cause(err)))
		return
	}
	r.Status, r.Header, r.Body = resp.StatusCode, resp.Header, body
	if len(r.Body) > MaxBurstReplyBody {
		r.Body, r.Cut = r.Body[:MaxBurstReplyBody:MaxBurstReplyBody], true
	}
	if err != nil {
		f.fail(i, fmt.Errorf("reading the reply's body: %w", f.cause(err)))
		return
	}
	r.Received = time.Now()
}

// awaitParked waits until the server has read what was written on each
// of conns (in memory) and waits for more, for at most d, or until the
// context ends.
func (f *firing) awaitParked(conns []net.Conn, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, c := range conns {
		mc := c.(*memnet.Conn)
		for !mc.PeerWaiting() {
			select {
			case <-mc.PeerParked():
			case <-t.C:
				return
			case <-f.ctx.Done():
				return
			}
		}
	}
}

// pause waits d, or until the context ends; it reports whether the
// context ended.
func (f *firing) pause(d time.Duration) (ended bool) {
	if d <= 0 {
		return f.ctx.Err() != nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return false
	case <-f.ctx.Done():
		return true
	}
}

// inMemory says whether every connection is in memory (see
// internal/memnet).
func inMemory(conns []net.Conn) bool {
	for _, c := range conns {
		if _, ok := c.(*memnet.Conn); !ok {
			return false
		}
	}
	return true
}

// burstWriters is how many goroutines write the release to n
// connections. On loopback, each write also runs the receiving side of
// TCP on the writer's processor (a few µs), so one writer takes ~100µs
// for 20 copies; writers on every processor finish together, and the
// server's handlers then start together on every processor.
func burstWriters(n int) int {
	return max(1, min(n, runtime.GOMAXPROCS(0), runtime.NumCPU(), burstMaxWriters))
}

// release writes the held-back tail to every live connection at once.
// The writers take connections from a shared counter, so a helper that
// the scheduler runs late only takes fewer (or none).
type release struct {
	conns []net.Conn
	tail  []byte
	sent  []time.Time
	errs  []error

	next    atomic.Int64
	fired   atomic.Bool
	started atomic.Int32
	helpers int
	wg      sync.WaitGroup
}

func newRelease(conns []net.Conn, tail []byte) *release {
	return &release{conns: conns, tail: tail, sent: make([]time.Time, len(conns)), errs: make([]error, len(conns))}
}

// releasing holds the one release that may spin at a time (see
// synchronized).
var releasing = make(chan struct{}, 1)

// startHelpers starts n goroutines that spin until the release, then
// write their share.
func (r *release) startHelpers(n int) {
	r.helpers = n
	for range n {
		r.wg.Go(func() {
			r.started.Add(1)
			for !r.fired.Load() {
				// Spin: waking a parked goroutine takes longer than the
				// whole release.
			}
			r.write()
		})
	}
}

// run releases the copies and returns, per connection, when its tail's
// write was issued and the write's error.
func (r *release) run() ([]time.Time, []error) {
	for start := time.Now(); int(r.started.Load()) < r.helpers && time.Since(start) < burstReadyWait; {
	}
	r.fired.Store(true)
	r.write()
	r.wg.Wait()
	return r.sent, r.errs
}

// write is the release loop: nothing in it but the writes, a clock read
// and taking the next connection.
func (r *release) write() {
	for k := int(r.next.Add(1) - 1); k < len(r.conns); k = int(r.next.Add(1) - 1) {
		r.sent[k] = time.Now()
		_, r.errs[k] = r.conns[k].Write(r.tail)
	}
}
