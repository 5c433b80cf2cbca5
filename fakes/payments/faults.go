package payments

import (
	"context"
	"net"
	"net/http"
	"time"
)

// wait blocks for d, or until ctx is done or the server starts closing. It
// reports whether the full delay elapsed.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

// resetConnection drops the connection under w without writing a reply,
// with a TCP reset where it can: the client sees "connection reset by peer"
// rather than a clean end of stream.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (e.g. HTTP/2): let net/http abort the stream.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
