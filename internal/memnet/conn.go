package memnet

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// BufferSize is how many bytes one direction of a connection holds that
// its reader has not read yet; a writer waits for room beyond that, as a
// TCP writer waits on a full send buffer.
const BufferSize = 256 << 10

// Addr is the address of one end of a connection in memory.
type Addr string

// Network implements net.Addr.
func (Addr) Network() string { return "memory" }

// String implements net.Addr.
func (a Addr) String() string { return string(a) }

// pipe is one direction of a connection: the bytes written by one end
// and not yet read by the other.
type pipe struct {
	mu  sync.Mutex
	buf []byte
	off int // buf[off:] is unread
	// eof: the writing end closed; the reader gets io.EOF once buf is read.
	eof bool
	// gone: the reading end closed; a write fails.
	gone bool
	// reset: the connection was reset; reads and writes fail at once.
	reset bool
	// readable and writable wake a waiting reader or writer; a waiter
	// checks the state again after each wake.
	readable, writable chan struct{}
	// waiting: the reader has read every byte and waits in Read for
	// more; parked wakes whoever waits for that (see Conn.PeerWaiting).
	waiting bool
	parked  chan struct{}
}

func newPipe() *pipe {
	return &pipe{readable: make(chan struct{}, 1), writable: make(chan struct{}, 1), parked: make(chan struct{}, 1)}
}

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Conn is one end of a connection in memory. It is safe for concurrent
// use, as a net.Conn is.
type Conn struct {
	local, remote Addr
	// server is the listener's address, which errors name (as a TCP
	// connection's name the server's port), whichever end fails.
	server Addr
	rx, tx *pipe // rx is read from, tx written to
	rd, wd deadline

	closeOnce sync.Once
	closed    chan struct{}
	mu        sync.Mutex
	linger0   bool
}

// Pair returns the two ends of a new connection, the client's (at
// address a) and the server's (at b): what one writes, the other reads.
func Pair(a, b Addr) (*Conn, *Conn) {
	ab, ba := newPipe(), newPipe()
	x := &Conn{local: a, remote: b, server: b, rx: ba, tx: ab, closed: make(chan struct{})}
	y := &Conn{local: b, remote: a, server: b, rx: ab, tx: ba, closed: make(chan struct{})}
	x.rd.init()
	x.wd.init()
	y.rd.init()
	y.wd.init()
	return x, y
}

func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "memory", Addr: c.server, Err: err}
}

// Read implements net.Conn.
func (c *Conn) Read(b []byte) (int, error) {
	p := c.rx
	for {
		select {
		case <-c.closed:
			return 0, c.opError("read", net.ErrClosed)
		default:
		}
		p.mu.Lock()
		switch {
		case p.reset:
			p.mu.Unlock()
			return 0, c.opError("read", syscall.ECONNRESET)
		case p.off < len(p.buf):
			if len(b) == 0 {
				p.mu.Unlock()
				return 0, nil
			}
			n := copy(b, p.buf[p.off:])
			p.off += n
			if p.off == len(p.buf) {
				p.buf, p.off = p.buf[:0], 0
			}
			p.mu.Unlock()
			wake(p.writable)
			return n, nil
		case p.eof:
			p.mu.Unlock()
			return 0, io.EOF
		}
		p.waiting = true
		p.mu.Unlock()
		wake(p.parked)
		select {
		case <-p.readable:
		case <-c.closed:
		case <-c.rd.wait():
			p.setWaiting(false)
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		p.setWaiting(false)
	}
}

func (p *pipe) setWaiting(w bool) {
	p.mu.Lock()
	p.waiting = w
	p.mu.Unlock()
}

// PeerWaiting says whether the other end has read every byte this end
// wrote and waits in Read for more: a server that has parsed what it got
// of a request and waits for its end. PeerParked wakes a caller waiting
// for that.
func (c *Conn) PeerWaiting() bool {
	p := c.tx
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting && p.off == len(p.buf)
}

// PeerParked returns a channel that receives when the other end starts
// waiting in Read (see PeerWaiting, which a receiver checks again: a
// wake may be stale).
func (c *Conn) PeerParked() <-chan struct{} { return c.tx.parked }

// Write implements net.Conn. It returns once every byte is in the
// connection's buffer (or with how many were, and why not the rest).
func (c *Conn) Write(b []byte) (int, error) {
	p := c.tx
	n := 0
	for {
		select {
		case <-c.closed:
			return n, c.opError("write", net.ErrClosed)
		case <-c.wd.wait():
			return n, c.opError("write", os.ErrDeadlineExceeded)
		default:
		}
		p.mu.Lock()
		switch {
		case p.reset:
			p.mu.Unlock()
			return n, c.opError("write", syscall.ECONNRESET)
		case p.gone:
			p.mu.Unlock()
			return n, c.opError("write", syscall.EPIPE)
		}
		if room := BufferSize - (len(p.buf) - p.off); room > 0 {
			k := min(room, len(b)-n)
			p.buf = append(p.buf, b[n:n+k]...)
			n += k
		}
		p.mu.Unlock()
		wake(p.readable)
		if n == len(b) {
			return n, nil
		}
		select {
		case <-p.writable:
		case <-c.closed:
		case <-c.wd.wait():
		}
	}
}

// SetLinger, as on a TCP connection: with 0, Close resets the connection
// instead of ending it in order. Other values change nothing.
func (c *Conn) SetLinger(sec int) error {
	c.mu.Lock()
	c.linger0 = sec == 0
	c.mu.Unlock()
	return nil
}

// Close implements net.Conn: the peer reads what was written, then EOF;
// its writes fail. After SetLinger(0) the connection is reset instead.
func (c *Conn) Close() error {
	first := false
	c.closeOnce.Do(func() {
		first = true
		close(c.closed)
	})
	if !first {
		return c.opError("close", net.ErrClosed)
	}
	c.mu.Lock()
	reset := c.linger0
	c.mu.Unlock()
	c.tx.mu.Lock()
	c.tx.eof = true
	c.tx.reset = c.tx.reset || reset
	if reset {
		c.tx.buf, c.tx.off = nil, 0
	}
	c.tx.mu.Unlock()
	c.rx.mu.Lock()
	c.rx.gone = true
	c.rx.reset = c.rx.reset || reset
	c.rx.buf, c.rx.off = nil, 0 // nobody will read it
	c.rx.mu.Unlock()
	wake(c.tx.readable)
	wake(c.rx.writable)
	c.rd.stop()
	c.wd.stop()
	return nil
}

// LocalAddr implements net.Conn.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr implements net.Conn.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline implements net.Conn.
func (c *Conn) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}

// SetReadDeadline implements net.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.rd.set(t)
	return nil
}

// SetWriteDeadline implements net.Conn.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.wd.set(t)
	return nil
}

// Pending says, without waiting, whether a read would return at once:
// bytes, EOF or a reset wait to be read. A client checks an idle
// connection this way before it sends a request on it.
func (c *Conn) Pending() bool {
	p := c.rx
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.off < len(p.buf) || p.eof || p.reset
}

// deadline is a read or write deadline: a channel closed once it has
// passed. Its timer is made once and moved lazily: net/http's server
// moves a connection's read deadline at every request, and a client
// sets one per request and clears it after, so a deadline moved later,
// or removed, leaves the timer where it is; when it fires early it finds
// the deadline not passed, and waits again for what is left.
type deadline struct {
	mu    sync.Mutex
	timer *time.Timer
	// timerAt is when the timer fires; zero when it is not running.
	timerAt time.Time
	at      time.Time
	expired chan struct{}
	stopped bool // the connection is closed: the timer is never armed again
}

func (d *deadline) init() { d.expired = make(chan struct{}) }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// set moves the deadline to t; the zero time removes it.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t.Equal(d.at) && !isClosed(d.expired) {
		return
	}
	d.at = t
	passed := isClosed(d.expired)
	if t.IsZero() {
		if passed {
			d.expired = make(chan struct{})
		}
		return
	}
	left := time.Until(t)
	if left <= 0 {
		if !passed {
			close(d.expired)
		}
		return
	}
	if passed {
		d.expired = make(chan struct{})
	}
	if !d.stopped {
		d.armLocked(t, left)
	}
}

// armLocked makes sure the timer fires at t (left from now) or before.
func (d *deadline) armLocked(t time.Time, left time.Duration) {
	switch {
	case d.timer == nil:
		d.timer = time.AfterFunc(left, d.fire)
	case !d.timerAt.IsZero() && !d.timerAt.After(t):
		return // it fires in time, and then waits again for the rest
	default:
		d.timer.Reset(left)
	}
	d.timerAt = t
}

// fire closes the channel of the deadline that passed, or waits again
// for one moved later.
func (d *deadline) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.timerAt = time.Time{}
	if d.stopped || d.at.IsZero() || isClosed(d.expired) {
		return
	}
	if left := time.Until(d.at); left > 0 {
		d.armLocked(d.at, left)
		return
	}
	close(d.expired)
}

// stop ends the deadline's timer (the connection is closed).
func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
		d.timerAt = time.Time{}
	}
}

func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
}
