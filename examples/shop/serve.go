package shop

import (
	"context"
	"errors"
	"fmt"
	"github.com/redis/go-redis/v9"
	"net"
	"net/http"
	"time"
)

// shutdownGrace bounds how long Serve waits for in-flight requests; it
// outlasts one downstream call.
const shutdownGrace = downstreamTimeout + 5*time.Second

// Serve runs a shop until ctx is done, then shuts down gracefully: it stops
// accepting, waits for in-flight requests, and returns nil. ready, if not
// nil, is called with the listening address (host:port) once connections
// are accepted. Serve returns an error at once if the options are invalid,
// the key store in Options.StateDir cannot be opened or loaded, or the
// address cannot be bound.
func Serve(ctx context.Context, opts Options, ready func(addr string)) error {
	p, err := opts.resolve()
	if err != nil {
		return err
	}
	var j *journal
	if p.durable && opts.StateDir != "" {
		if j, err = openJournal(opts.StateDir); err != nil {
			return err
		}
		// Closed after the server has shut down: in-flight requests may
		// still write.
		defer j.close()
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Listen, err)
	}
	if err := checkLoopback(ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}

	pay := newPaymentsClient(opts.PaymentsURL)
	defer pay.close()
	boot := newBootID()
	var rdb *redis.Client
	if p.Redis {
		// The connections carry the boot id as their name, so that another
		// instance can tell a live claim from a dead process's (redisLive).
		rdb = redis.NewClient(&redis.Options{Addr: opts.Redis, ClientName: redisClientName(boot), MinIdleConns: 1})
		defer rdb.Close()
	}
	svc := newService(p, pay, guardDeps{journal: j, boot: boot, window: opts.Window, redis: rdb, keys: opts.Keys, ttl: opts.TTL})
	svc.ids.spread(opts.Instance)
	if opts.EmailURL != "" {
		m := newMailer(opts.EmailURL)
		defer m.close()
		svc.mailer = m
		svc.emailWithoutKey = opts.EmailWithoutKey
	}
	srv := &http.Server{
		Handler:           svc.routes(),
		ReadHeaderTimeout: 10 * time.Second,
	}
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
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: requests still running after %v: %w", shutdownGrace, err)
	}
	return nil
}
