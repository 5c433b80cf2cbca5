package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// downstreamTimeout bounds one call to payments.
const downstreamTimeout = 10 * time.Second

// Serve runs a handler until ctx is done, then shuts down gracefully and
// returns nil. ready, if not nil, is called with the listening address once
// connections are accepted. It fails at once on bad options, a state
// directory it cannot use, or an address it cannot bind.
func Serve(ctx context.Context, opts Options, ready func(addr string)) error {
	p, err := opts.resolve()
	if err != nil {
		return err
	}
	dir := opts.StateDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "webhooks-state-"); err != nil {
			return fmt.Errorf("temporary state directory: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	d, err := p.newDedup(dedupDeps{dir: dir, boot: newBootID(), lease: opts.Lease, lruSize: opts.LRUSize, now: opts.Now})
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	if err := checkLoopback(ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	pay := newPayments(opts.PaymentsURL)
	defer pay.close()
	h := &handler{p: p, secret: []byte(opts.Secret), now: opts.Now, dedup: d, pay: pay}
	srv := &http.Server{Handler: h.routes(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), downstreamTimeout+5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
