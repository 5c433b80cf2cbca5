package httpfake

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"syscall"

	"github.com/idemcheck/idemcheck/fakes"
)

// A caller that closes its connection while a reply still waits unread
// in it makes the system reset the connection: a reset that follows a
// reply, before the caller sent anything more, says that the caller gave
// up on the call (its own timeout fired first) without reading what the
// fake answered. The effect that reply reported is then marked
// unanswered in the ledger (fakes.Effect.Unanswered): the caller cannot
// have learnt of it from that call. A connection the caller closes after
// reading the reply ends without a reset, and marks nothing.

// watchListener hands out connections that watch for such a reset.
type watchListener struct{ net.Listener }

func (l watchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c}, nil
}

// watchedConn is a served connection that remembers the effect its last
// reply reported until the caller sends more.
type watchedConn struct {
	net.Conn
	mu     sync.Mutex
	ledger *fakes.Ledger
	effect int64
}

// replied records that the reply about to be written reports the effect
// numbered seq in l.
func (c *watchedConn) replied(l *fakes.Ledger, seq int64) {
	c.mu.Lock()
	c.ledger, c.effect = l, seq
	c.mu.Unlock()
}

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	var ne net.Error
	if n == 0 && (err == nil || errors.As(err, &ne) && ne.Timeout()) {
		// Nothing came: the server's own watch of the connection ends
		// with a deadline, and says nothing of the caller.
		return n, err
	}
	c.mu.Lock()
	l, seq := c.ledger, c.effect
	c.ledger, c.effect = nil, 0
	c.mu.Unlock()
	if n == 0 && l != nil && errors.Is(err, syscall.ECONNRESET) {
		l.MarkUnanswered(seq)
	}
	return n, err
}

// connKey is the context key of a request's *watchedConn.
type connKey struct{}

// watchedConnContext is the server's ConnContext: it puts the connection
// in its requests' contexts, for Faults.Serve.
func watchedConnContext(ctx context.Context, c net.Conn) context.Context {
	if w, ok := c.(*watchedConn); ok {
		return context.WithValue(ctx, connKey{}, w)
	}
	return ctx
}

// watchReply makes the connection of r watch for its caller resetting it
// before reading the reply to be written, which reports the effect
// numbered seq in l.
func watchReply(r *http.Request, l *fakes.Ledger, seq int64) {
	if w, ok := r.Context().Value(connKey{}).(*watchedConn); ok && l != nil && seq != 0 {
		w.replied(l, seq)
	}
}
