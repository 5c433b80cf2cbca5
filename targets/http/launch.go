package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Launch says how to start the process that serves an HTTP target (see
// process.Launch). Command, Env values, Dir and the Config's BaseURL may
// use {{port}} (a free loopback port picked for this start),
// {{state_dir}}, {{fakes.NAME.url}} and, for a fake with an SMTP server,
// {{fakes.NAME.smtp}} (host:port). Replicas is how many instances are
// started (0 or 1 for one): each on a port of its own ({{port}} differs,
// {{replica}} is 0, 1, …, and IDEMCHECK_REPLICA is set to it), all with
// the same state directory, environment and fakes (see replicas.go).
type Launch = process.Launch

// Spec returns a harness.Spec that starts the fakes, then the target's
// process (when launch is not nil), then the adapter in front of it.
func Spec(cfg Config, launch *Launch, fakes ...harness.FakeStarter) harness.Spec {
	return harness.Spec{
		Name:  cfg.Name,
		Kind:  "http",
		Fakes: fakes,
		Start: func(ctx context.Context, env *harness.Env) (harness.Target, error) {
			return start(ctx, cfg, launch, env)
		},
		// A process idemcheck starts, with a state directory of its own.
		Isolated: launch != nil,
	}
}

func start(ctx context.Context, cfg Config, launch *Launch, env *harness.Env) (harness.Target, error) {
	n := 1
	if launch != nil && launch.Replicas > 1 {
		n = launch.Replicas
		if !strings.Contains(cfg.BaseURL, "port") {
			return nil, fmt.Errorf("target %s: %w", cfg.Name, errReplicasNeedPort)
		}
	}
	urlTmpl := cfg.BaseURL
	procs := make([]*process.Process, 0, n)
	stopAll := func() {
		for _, p := range procs {
			_ = p.Stop(context.Background())
		}
	}
	for i := range n {
		base, proc, err := startOne(ctx, cfg.Name, urlTmpl, launch, env, i, n)
		if err != nil {
			stopAll()
			return nil, err
		}
		if i == 0 {
			cfg.BaseURL = base
		} else {
			cfg.ReplicaURLs = append(cfg.ReplicaURLs, base)
		}
		if proc != nil {
			procs = append(procs, proc)
		}
	}
	t, err := New(cfg)
	if err != nil {
		stopAll()
		return nil, err
	}
	if len(procs) == len(t.insts) {
		for i, p := range procs {
			t.insts[i].proc = p
		}
	}
	if len(procs) > 0 {
		t.OnClose(func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var err error
			for _, p := range procs {
				err = errors.Join(err, p.Stop(ctx))
			}
			return err
		})
	}
	return t, nil
}

// startOne expands the target's URL for instance i of n and starts its
// process when launch says how; it returns the URL and the process (nil
// when the target is not started by idemcheck).
func startOne(ctx context.Context, name, urlTmpl string, launch *Launch, env *harness.Env, i, n int) (string, *process.Process, error) {
	vars := env.Vars()
	vars["replica"] = strconv.Itoa(i)
	if launch != nil || process.Mentions("port", urlTmpl) {
		if err := process.AddPort(vars); err != nil {
			return "", nil, fmt.Errorf("target %s: %w", name, err)
		}
	}
	expand := func(s string) (string, error) { return harness.Expand(s, vars) }
	base, err := expand(urlTmpl)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: url: %w", name, err)
	}
	if launch == nil {
		if err := reachable(ctx, base); err != nil {
			return "", nil, fmt.Errorf("target %s: %w", name, err)
		}
		return base, nil, nil
	}
	if n > 1 {
		name = fmt.Sprintf("%s#%d", name, i)
	}
	spec, err := launch.Spec(name, base, env.RunID, expand)
	if err != nil {
		return "", nil, fmt.Errorf("target %s: %w", name, err)
	}
	if n > 1 {
		spec.Env = append(spec.Env, "IDEMCHECK_REPLICA="+strconv.Itoa(i))
	}
	proc, err := process.Start(ctx, spec)
	if err != nil {
		return "", nil, err
	}
	return base, proc, nil
}

// reachTimeout bounds the check that a target idemcheck does not start
// answers at its URL.
const reachTimeout = 5 * time.Second

// reachable checks that something accepts connections at base, the URL of
// a target idemcheck does not start: when nothing does, the run says so
// before any call, rather than failing its first call or read-back.
func reachable(ctx context.Context, base string) error {
	u, err := url.Parse(loopbackURL(base)) // where the calls go
	if err != nil || u.Host == "" {
		return nil // New reports a bad URL
	}
	addr := oncehttp.Address(u)
	d := net.Dialer{Timeout: reachTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("nothing answers at %s (%w): start the service before the run, or give the target a start: command that starts it", base, err)
	}
	defer c.Close()
	if u.Scheme != "https" {
		return nil
	}
	// The handshake every call will make, verified as theirs is: a
	// certificate they would refuse is said before the run, not as the
	// failure of its first call or read-back.
	tc := tls.Client(c, oncehttp.TLSConfig(nil, addr))
	hctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the TLS handshake with %s failed: %w%s", base, err, oncehttp.TLSHint(err.Error()))
	}
	_ = tc.Close()
	return nil
}
