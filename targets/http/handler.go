package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"time"

	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/bubble"
	"github.com/idemcheck/idemcheck/internal/memnet"
)

// NewHandler builds the handler under test for one target: env holds the
// running fakes (env.Fakes["payments"].URL() is the payments fake's base
// URL, env.HTTPClient() the client that reaches it in memory) and a fresh
// state directory. It is called again for every fresh
// instance of the target: the probes', one per trial worker (whose
// trials share it, each with keys of its own), and one per run of a
// failing trial's shrinking and replays (and per trial with
// harness.WithFreshTrials). A handler that implements io.Closer is closed
// when its instance ends, after its server.
type NewHandler func(env *harness.Env) nethttp.Handler

// CheckHandler runs idemcheck on an http.Handler inside go test: it starts
// the payments fake, serves newHandler's handler, and runs harness.Check
// with ops as the target's operations (their path, headers or body carry
// {{marker}}, which the handler passes on to the payments it makes, so
// that each charge is traced to its request).
//
// The handler is served in memory, as the fakes are: idemcheck's calls
// reach it through the fault proxy without a socket, and so do its own
// calls to the fakes when it makes them with env.HTTPClient() (with
// another client they go over loopback, as they would to a real service).
// Every fault keeps its meaning: a reset resets the connection, a lost
// reply is lost, a burst's copies are released together. It also listens
// on a loopback port (its BaseURL), for any other client.
// Options are harness.Check's: harness.WithMinScore, harness.WithSkip,
// harness.WithTrials, …; the score and its reason are logged.
//
//	func TestShop(t *testing.T) {
//		httptarget.CheckHandler(t, func(env *harness.Env) http.Handler {
//			return shop.New(env.Fakes["payments"].URL(), env.HTTPClient())
//		}, []httptarget.Operation{{Name: "charge", Mutating: true, Method: "POST",
//			Path: "/charges", Body: `{"memo":"{{marker}}"}`}})
//	}
//
// A handler whose key store stamps its keys with env.Now (not time.Now)
// lets the check skip the late retry's delay (2.5 s by default): the
// harness moves that clock on instead of waiting, and the store sees the
// delay pass all the same.
//
// Inside a bubble of testing/synctest every wait of the check passes on
// the bubble's clock, at once, and a key store on time.Now sees it pass
// too: a default check takes about 0.15 s whatever clock the handler
// reads.
//
//	func TestShop(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			httptarget.CheckHandler(t, newShop, ops, harness.WithMinScore(2))
//		})
//	}
//
// In a bubble the handler and the fakes take no connection over TCP (a
// goroutine waiting on a socket would hold the bubble's clock still):
// a dial to their loopback addresses is refused, so the handler calls the
// fakes with env.HTTPClient() (the email fake's SMTP port, TCP alone,
// cannot be reached there; nor can a bubble hold an address on a system
// other than unix). What the handler starts must end with the
// check: a handler that implements io.Closer is closed when its instance
// ends (each of the probes' and the trials' instances), so that a
// goroutine or a pool it started ends with it (one left behind ends the
// bubble with Go's deadlock panic, which stops the package's tests); what
// it shares with the test outside the bubble is subject to
// testing/synctest's rules.
//
// Every setting of the adapter's Config has its default (the effect in
// the reply's "effect" field, the result's identity in "data.id", no dry
// run); CheckHandlerConfig takes a whole Config. An in-process handler
// cannot be crashed, so the crash faults are reported as unsupported.
func CheckHandler(t harness.TB, newHandler NewHandler, ops []Operation, opts ...harness.Option) {
	t.Helper()
	CheckHandlerConfig(t, Config{Name: "handler", Operations: ops}, newHandler, opts...)
}

// CheckHandlerConfig is CheckHandler with the adapter's whole Config (its
// BaseURL is set to where the handler is served): a dry run, other
// locators, another key header.
func CheckHandlerConfig(t harness.TB, cfg Config, newHandler NewHandler, opts ...harness.Option) {
	t.Helper()
	harness.Check(t, HandlerSpec(cfg, newHandler, payments.Starter(payments.Options{})), opts...)
}

// HandlerSpec returns a harness.Spec that starts the fakes, then serves
// newHandler's handler in memory and on a free loopback port, then the
// adapter in front of it; closing the target stops the server.
func HandlerSpec(cfg Config, newHandler NewHandler, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  "http",
		Fakes: fakes,
		Start: func(_ context.Context, env *harness.Env) (harness.Target, error) {
			return serveHandler(cfg, newHandler(env))
		},
		// Every start builds a handler of its own.
		Isolated: true,
	}
}

func serveHandler(cfg Config, h nethttp.Handler) (harness.Target, error) {
	if h == nil {
		return nil, fmt.Errorf("target %s: the handler constructor returned nil", cfg.Name)
	}
	l, err := bubble.Listen("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	// The proxy and a burst dial through memnet: at this address they
	// reach the handler in memory.
	mem, err := memnet.Listen(l.Addr().String())
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("target %s: %w", cfg.Name, err)
	}
	srv := &nethttp.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(l) }()
	go func() { served <- srv.Serve(mem) }()
	// Close, not Shutdown: a handler that never returns must not hold the
	// run; closing its connection cancels its request's context.
	stop := func() error {
		err := srv.Close()
		for range 2 {
			if serr := <-served; !errors.Is(serr, nethttp.ErrServerClosed) {
				err = errors.Join(err, serr)
			}
		}
		if c, ok := h.(io.Closer); ok {
			// What the handler started ends with its instance, once its
			// server has stopped serving.
			err = errors.Join(err, c.Close())
		}
		return err
	}
	cfg.BaseURL = "http://" + l.Addr().String()
	t, err := New(cfg)
	if err != nil {
		_ = stop()
		return nil, err
	}
	t.OnClose(stop)
	t.inProcess = true
	return t, nil
}
