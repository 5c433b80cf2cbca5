package tcpproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// bufSize is the read and write buffer of each direction.
const bufSize = 64 << 10

// dialTimeout bounds connecting to the upstream server.
const dialTimeout = 5 * time.Second

// PipeFunc carries one direction of a connection: it reads from r and
// writes what it passes on with w. It returns when r fails (the peer
// closed) or when it gives up on a protocol error; either closes the
// connection.
type PipeFunc func(c *Conn, r *bufio.Reader, w *Writer) error

// Pipes are the two directions. A nil PipeFunc copies bytes unchanged.
type Pipes struct {
	// Up carries what the client sends to the server.
	Up PipeFunc
	// Down carries what the server sends to the client.
	Down PipeFunc
}

// Writer is one direction's output, buffered and safe for concurrent use,
// so that a held message can be written later from another goroutine.
type Writer struct {
	mu sync.Mutex
	bw *bufio.Writer
}

// Write writes b, and flushes when flush is true (a pipe flushes when it
// has nothing more buffered to read, so that batches go out together).
func (w *Writer) Write(b []byte, flush bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.bw.Write(b); err != nil {
		return err
	}
	if flush {
		return w.bw.Flush()
	}
	return nil
}

// Conn is one proxied client connection.
type Conn struct {
	// ID names the connection in observations: "c1", "c2", … in order of
	// arrival.
	ID string
	// ToServer and ToClient are the two directions' outputs.
	ToServer, ToClient *Writer

	client, server net.Conn
	closeOnce      sync.Once
}

// Close closes both sides of the connection.
func (c *Conn) Close() {
	c.closeOnce.Do(func() {
		_ = c.client.Close()
		_ = c.server.Close()
	})
}

// Proxy accepts connections on a loopback port and connects each to the
// upstream address through the pipes.
type Proxy struct {
	ln       net.Listener
	upstream string
	pipes    Pipes
	next     atomic.Int64

	mu     sync.Mutex
	conns  map[*Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Start listens on 127.0.0.1 (a free port) and proxies every connection
// to upstream.
func Start(upstream string, pipes Pipes) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: listen on 127.0.0.1:0: %w", upstream, err)
	}
	p := &Proxy{ln: ln, upstream: upstream, pipes: pipes, conns: map[*Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port returns the proxy's port.
func (p *Proxy) Port() int {
	_, port, _ := net.SplitHostPort(p.Addr())
	n, _ := strconv.Atoi(port)
	return n
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		cc, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// A transient accept error (out of files): try again shortly.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		sc, err := net.DialTimeout("tcp", p.upstream, dialTimeout)
		if err != nil {
			_ = cc.Close()
			continue
		}
		c := &Conn{
			ID:       "c" + strconv.FormatInt(p.next.Add(1), 10),
			ToServer: &Writer{bw: bufio.NewWriterSize(sc, bufSize)},
			ToClient: &Writer{bw: bufio.NewWriterSize(cc, bufSize)},
			client:   cc, server: sc,
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.conns[c] = struct{}{}
		p.wg.Add(2)
		p.mu.Unlock()
		go p.run(c, p.pipes.Up, cc, c.ToServer)
		go p.run(c, p.pipes.Down, sc, c.ToClient)
	}
}

func (p *Proxy) run(c *Conn, pipe PipeFunc, src net.Conn, w *Writer) {
	defer p.wg.Done()
	defer func() {
		c.Close()
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	r := bufio.NewReaderSize(src, bufSize)
	if pipe == nil {
		pipe = copyPipe
	}
	_ = pipe(c, r, w)
}

// copyPipe passes bytes on unchanged.
func copyPipe(_ *Conn, r *bufio.Reader, w *Writer) error {
	buf := make([]byte, bufSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if werr := w.Write(buf[:n], true); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// CloseConns closes every open connection (the consumer sees its
// connection to the broker drop) and leaves the proxy accepting new ones.
func (p *Proxy) CloseConns() {
	p.mu.Lock()
	conns := make([]*Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Close stops accepting, closes every connection and waits for the pipes
// to return. A nil Proxy closes as nothing.
func (p *Proxy) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.CloseConns()
	p.wg.Wait()
	return err
}
