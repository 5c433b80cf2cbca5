package listener

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/deps"
)

// Handler serves the connections a Server accepts.
type Handler interface {
	// Serve relays one target connection, numbered id, until it ends.
	// The Server closes c afterwards.
	Serve(ctx context.Context, id uint64, c net.Conn)
	// Refuse turns c away, in the way how, while the Server refuses new
	// connections. The Server closes c afterwards.
	Refuse(ctx context.Context, id uint64, c net.Conn, how deps.Refusal)
}

// Server accepts target connections on loopback and hands them to a
// Handler.
type Server struct {
	ln     net.Listener
	h      Handler
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	nextID atomic.Uint64

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	refuse  deps.Refusal
	until   time.Time // zero with refuse set: until AcceptNew
	closeMu sync.Once
}

// Listen listens on addr (127.0.0.1:0 when empty); once Start is called
// it serves connections with h until Close.
func Listen(addr string, h Handler) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dependency proxy: listen on %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{ln: ln, h: h, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}, nil
}

// Start accepts connections, once the Handler is ready for them.
func (s *Server) Start() {
	s.wg.Add(1)
	go s.accept()
}

// Addr returns the host:port the Server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Context is done once Close has begun.
func (s *Server) Context() context.Context { return s.ctx }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return
			}
			// A transient failure (out of descriptors): wait a little
			// rather than spin, and give up when closing.
			select {
			case <-time.After(10 * time.Millisecond):
				continue
			case <-s.ctx.Done():
				return
			}
		}
		if !s.track(c) {
			_ = c.Close()
			return
		}
		id := s.nextID.Add(1)
		how, refusing := s.Refusing()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.Release(c)
			if refusing {
				s.h.Refuse(s.ctx, id, c, how)
				return
			}
			s.h.Serve(s.ctx, id, c)
		}()
	}
}

// track registers c so that Close and DropConnections close it; it
// reports false when the Server is closed.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

// Release closes c and forgets it.
func (s *Server) Release(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	_ = c.Close()
}

// Dial connects to the real database at addr within timeout and tracks the
// connection; Release it when done.
func (s *Server) Dial(addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if !s.track(c) {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// Go runs f on a goroutine that Close waits for.
func (s *Server) Go(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// RefuseNew refuses new connections in the way how for d, or until
// AcceptNew when d is 0.
func (s *Server) RefuseNew(how deps.Refusal, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = how
	s.until = time.Time{}
	if d > 0 {
		s.until = time.Now().Add(d)
	}
}

// AcceptNew ends a refusal window.
func (s *Server) AcceptNew() {
	s.mu.Lock()
	s.refuse = ""
	s.mu.Unlock()
}

// Refusing says whether new connections are refused now, and how.
func (s *Server) Refusing() (deps.Refusal, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse == "" {
		return "", false
	}
	if !s.until.IsZero() && !time.Now().Before(s.until) {
		s.refuse = ""
		return "", false
	}
	return s.refuse, true
}

// DropConnections resets every open connection, the targets' and the
// database's; the Handler's goroutines see them fail and end.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		Reset(c)
	}
}

// Reset closes c so that its peer sees a reset rather than an orderly end,
// as when a server's process dies.
func Reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// Close stops accepting, closes every connection and waits for the
// Handler's goroutines, which see ctx done.
func (s *Server) Close() error {
	var err error
	s.closeMu.Do(func() {
		s.cancel()
		s.mu.Lock()
		s.closed = true
		conns := make([]net.Conn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		err = s.ln.Close()
		for _, c := range conns {
			_ = c.Close()
		}
		s.wg.Wait()
	})
	return err
}
