package faults

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// The proxy serves its client connections itself, not through net/http's
// server: one goroutine per connection reads a request, runs the exchange
// and writes the reply, and only an exchange whose fault waits for the
// client to leave watches the connection meanwhile. net/http's server
// watches every connection during every request (a read in a goroutine of
// its own, aborted once the handler returns), which costs as much as the
// rest of the proxy's work on a request.

// Bounds on what the proxy reads of a client's request.
const (
	// maxRequestHeader bounds a request's header section.
	maxRequestHeader = 1 << 20
	// requestReadTimeout bounds the reading of a request, once its first
	// byte has come.
	requestReadTimeout = 10 * time.Second
)

// longAgo is a deadline in the past: it ends every wait at once.
var longAgo = time.Unix(1, 0)

// connSet is the set of client connections a proxy serves, for Close.
type connSet struct {
	mu sync.Mutex
	// conns maps each connection to whether an exchange is in progress
	// on it.
	conns   map[net.Conn]bool
	active  int
	idle    chan struct{} // closed when active falls to 0 while closing
	closing bool
	wg      sync.WaitGroup
}

// serve accepts connections from ln and serves each in a goroutine of
// its own, until ln is closed.
func (s *connSet) serve(p *Proxy, ln net.Listener) {
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				// Out of file descriptors, or a connection that failed
				// as it was accepted: try again shortly, as net/http
				// does.
				time.Sleep(5 * time.Millisecond)
				continue
			}
			if !s.add(c) {
				_ = c.Close()
				continue
			}
			s.wg.Go(func() {
				defer s.remove(c)
				pc := newProxyConn(p, c)
				pc.serve()
				pc.release()
			})
		}
	})
}

func (s *connSet) add(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]bool{}
	}
	s.conns[c] = false
	return true
}

func (s *connSet) remove(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[c] {
		s.leaveLocked()
	}
	delete(s.conns, c)
}

// begin marks an exchange in progress on c; false when the proxy is
// closing and c must close instead.
func (s *connSet) begin(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = true
	s.active++
	return true
}

// end marks the exchange on c over; false when the proxy is closing and
// c must close.
func (s *connSet) end(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[c] {
		s.conns[c] = false
		s.leaveLocked()
	}
	return !s.closing
}

func (s *connSet) leaveLocked() {
	s.active--
	if s.active == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// close closes the idle connections, waits up to wait for the exchanges
// in progress, then calls abort (which ends the forwards still running)
// and closes every connection; it returns once every connection's
// goroutine has ended. Listeners must be closed first.
func (s *connSet) close(wait time.Duration, abort func()) error {
	s.mu.Lock()
	s.closing = true
	var idle chan struct{}
	if s.active > 0 {
		idle = make(chan struct{})
		s.idle = idle
	}
	for c, busy := range s.conns {
		if !busy {
			_ = c.Close()
		}
	}
	s.mu.Unlock()
	var err error
	if idle != nil {
		select {
		case <-idle:
		case <-time.After(wait):
			err = errors.New("fault proxy: exchanges still in progress after " + wait.String() + ": cut")
		}
	}
	abort()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// proxyConn is one client connection.
type proxyConn struct {
	p  *Proxy
	c  net.Conn
	lr *limitedReader
	br *bufio.Reader
	bw *bufio.Writer
	// w is kept for the exchanges in wire form (see proxy_wire.go).
	w *wireState
}

// Buffers of the connections served, kept for the next connections: a
// client that opens a connection per request does not cost 8 KiB each.
var (
	readerPool sync.Pool // of *bufio.Reader
	writerPool sync.Pool // of *bufio.Writer
	wirePool   sync.Pool // of *wireState
)

func newProxyConn(p *Proxy, c net.Conn) *proxyConn {
	lr := &limitedReader{r: c, n: -1, c: c}
	br, _ := readerPool.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReader(lr)
	} else {
		br.Reset(lr)
	}
	bw, _ := writerPool.Get().(*bufio.Writer)
	if bw == nil {
		bw = bufio.NewWriter(c)
	} else {
		bw.Reset(c)
	}
	return &proxyConn{p: p, c: c, lr: lr, br: br, bw: bw}
}

// release gives the connection's buffers back; it must not be used
// after, nor be watched.
func (pc *proxyConn) release() {
	pc.br.Reset(nil)
	pc.bw.Reset(nil)
	readerPool.Put(pc.br)
	writerPool.Put(pc.bw)
	pc.br, pc.bw = nil, nil
	if pc.w != nil {
		pc.w.reply = nil // it holds pc
		wirePool.Put(pc.w)
		pc.w = nil
	}
}

// serve runs the connection's exchanges one after the other until the
// client closes it, asks to, or an exchange resets it.
func (pc *proxyConn) serve() {
	for {
		if _, err := pc.br.Peek(1); err != nil {
			return
		}
		if !pc.p.conns.begin(pc.c) {
			return
		}
		keep := pc.exchange()
		if !pc.p.conns.end(pc.c) || !keep {
			return
		}
	}
}

// exchange reads one request and runs it; it says whether the
// connection may carry another.
func (pc *proxyConn) exchange() bool {
	if ran, keep := pc.wireExchange(); ran {
		return keep
	}
	// The deadline is set by the first read that reaches the connection:
	// a request that came whole with its first bytes sets none.
	pc.lr.deadline, pc.lr.armed = true, false
	pc.lr.n = maxRequestHeader
	req, err := oncehttp.ReadRequest(pc.br)
	pc.lr.n = -1
	if err != nil {
		if !errors.Is(err, io.EOF) {
			_, _ = io.WriteString(pc.c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
		return false
	}
	cs := &connSide{pc: pc, req: req, keep: !req.Close && req.ProtoAtLeast(1, 1)}
	// The whole body is read first (forwarding needs it whole anyway), so
	// that the connection can be watched for the client leaving.
	if err := cs.readBody(); err != nil {
		return false
	}
	if pc.lr.deadline = false; pc.lr.armed {
		_ = pc.c.SetReadDeadline(time.Time{})
	}
	pc.p.handle(req, cs)
	cs.stopWatching()
	return cs.keep && !cs.resetDone
}

// limitedReader lets n more bytes through (any number when n < 0) from
// the connection c. While deadline is set, the first read puts
// requestReadTimeout on c (armed says it did).
type limitedReader struct {
	r               io.Reader
	n               int
	c               net.Conn
	deadline, armed bool
}

var errRequestHeaderTooLarge = errors.New("the request's header section is over 1 MiB")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.deadline && !l.armed {
		_ = l.c.SetReadDeadline(time.Now().Add(requestReadTimeout))
		l.armed = true
	}
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errRequestHeaderTooLarge
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// connSide is the client's end of an exchange on a connection the proxy
// serves.
type connSide struct {
	pc   *proxyConn
	req  *http.Request
	keep bool
	// resetDone: the connection was reset.
	resetDone bool

	watchOnce sync.Once
	goneCh    chan struct{}
	watched   chan struct{} // closed when the watcher has returned
	stopping  atomic.Bool
	ctx       context.Context
	cancel    context.CancelFunc
}

// readBody reads the request's body whole (up to maxBody and a byte, to
// tell that it is longer: forwarding refuses it then), and puts it back
// for the exchange to read: forwarding takes the bytes read, without
// copying them again.
func (cs *connSide) readBody() error {
	r := cs.req
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.Header.Get("Expect") == "100-continue" {
		if _, err := io.WriteString(cs.pc.c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return err
		}
	}
	body, err := oncehttp.ReadAll(r.Body, r.ContentLength, maxBody+1)
	if err != nil {
		return err
	}
	if len(body) > maxBody {
		cs.keep = false // the rest is not read
	}
	r.Body = oncehttp.BytesBody(body)
	return nil
}

// gone starts watching the connection, once: a read that ends in an
// error is the client leaving; bytes that arrive (a next request) end
// the watch without it.
func (cs *connSide) gone() <-chan struct{} {
	cs.watchOnce.Do(func() {
		cs.goneCh = make(chan struct{})
		cs.watched = make(chan struct{})
		go func() {
			defer close(cs.watched)
			if _, err := cs.pc.br.Peek(1); err != nil && !cs.stopping.Load() {
				close(cs.goneCh)
			}
		}()
	})
	return cs.goneCh
}

// context is cancelled when the client goes away, or the exchange ends.
func (cs *connSide) context() context.Context {
	if cs.ctx == nil {
		cs.ctx, cs.cancel = context.WithCancel(cs.pc.p.ctx)
		gone, ctx, cancel := cs.gone(), cs.ctx, cs.cancel
		go func() {
			select {
			case <-gone:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return cs.ctx
}

// stopWatching ends the watch, if one runs, before the next request is
// read.
func (cs *connSide) stopWatching() {
	if cs.cancel != nil {
		cs.cancel()
	}
	if cs.watched == nil {
		return
	}
	cs.stopping.Store(true)
	_ = cs.pc.c.SetReadDeadline(longAgo)
	<-cs.watched
	_ = cs.pc.c.SetReadDeadline(time.Time{})
	select {
	case <-cs.goneCh:
		cs.keep = false
	default:
	}
}

// skippedReplyHeader says whether the proxy writes header k of a reply
// itself.
func skippedReplyHeader(k string) bool {
	switch k {
	case "Content-Length", "Transfer-Encoding", "Connection":
		return true
	}
	return false
}

func (cs *connSide) respond(status int, header http.Header, body []byte) {
	if !writeReply(cs.pc.bw, status, header, body, cs.keep, cs.req.Method == http.MethodHead) {
		cs.keep = false
	}
}

// writeReply writes a reply to bw and flushes it: its status line, the
// proxy's own Content-Length (and Content-Type, when the header has none
// and the body is not empty), "Connection: close" unless keep, header
// in the order of its names, and body unless the request was a HEAD. It
// says whether the flush went well.
func writeReply(bw *bufio.Writer, status int, header http.Header, body []byte, keep, head bool) bool {
	writeStatusLine(bw, status)
	bodyless := status < 200 || status == http.StatusNoContent || status == http.StatusNotModified
	if !bodyless {
		writeLength(bw, len(body))
		if len(body) > 0 && header.Get("Content-Type") == "" {
			_, _ = bw.WriteString("Content-Type: " + http.DetectContentType(body) + "\r\n")
		}
	}
	if !keep {
		_, _ = bw.WriteString("Connection: close\r\n")
	}
	oncehttp.WriteHeader(bw, header, skippedReplyHeader)
	_, _ = bw.WriteString("\r\n")
	if !bodyless && !head {
		_, _ = bw.Write(body)
	}
	return bw.Flush() == nil
}

// writeStatusLine writes a reply's status line, its reason the usual one
// for status.
func writeStatusLine(bw *bufio.Writer, status int) {
	_, _ = bw.WriteString("HTTP/1.1 ")
	_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), int64(status), 10))
	_ = bw.WriteByte(' ')
	_, _ = bw.WriteString(http.StatusText(status))
	_, _ = bw.WriteString("\r\n")
}

// writeLength writes a Content-Length line.
func writeLength(bw *bufio.Writer, n int) {
	_, _ = bw.WriteString("Content-Length: ")
	_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), int64(n), 10))
	_, _ = bw.WriteString("\r\n")
}

func (cs *connSide) reset() {
	cs.resetDone = true
	resetConn(cs.pc.c)
}
