package listener

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/deps"
)

// Probe dials addr, sends req, and returns the first byte of the answer,
// within timeout. Its errors match deps.ErrUpstreamUnreachable (no
// connection), deps.ErrUpstreamSilent (no answer in time) or
// deps.ErrUpstreamProtocol (closed without answering), and say so in
// terms of what (the request, as the protocol names it).
func Probe(ctx context.Context, addr string, timeout time.Duration, req []byte, what string) (byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("%w: dial %s: %v; start it first, or check the dependency's address", deps.ErrUpstreamUnreachable, addr, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := c.Write(req); err != nil {
		return 0, fmt.Errorf("%w: writing to %s: %v", deps.ErrUpstreamUnreachable, addr, err)
	}
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, fmt.Errorf("%w: %s accepted a connection but did not answer %s within %s", deps.ErrUpstreamSilent, addr, what, timeout)
		}
		return 0, fmt.Errorf("%w: %s closed the connection instead of answering %s (%v)", deps.ErrUpstreamProtocol, addr, what, err)
	}
	return b[0], nil
}
