package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sync"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/container"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// build turns a validated configuration into what the harness runs.
func build(f *config.File) ([]harness.Spec, []harness.Option, error) {
	var starters []harness.FakeStarter
	if p := f.Fakes.Payments; p != nil {
		ignore := p.HonourKeys != nil && !*p.HonourKeys
		starters = append(starters, paymentsStarter(ignore))
	}
	if e := f.Fakes.Email; e != nil {
		ignore := e.HonourKeys != nil && !*e.HonourKeys
		starters = append(starters, emailStarter(ignore))
	}
	if w := f.Fakes.Webhooks; w != nil {
		ignore := w.HonourKeys != nil && !*w.HonourKeys
		starters = append(starters, webhooksStarter(ignore, w.KeyHeader))
	}
	var specs []harness.Spec
	var errs config.Errors
	for i, t := range f.Targets {
		switch t.Kind {
		case config.KindHTTP:
			specs = append(specs, httpSpec(t, starters))
		case config.KindCLI:
			specs = append(specs, cliSpec(t, starters))
		case config.KindWebhook:
			specs = append(specs, webhookSpec(t, starters))
		case config.KindContainer:
			if b := t.Build; b != nil {
				if err := checkBinary(b.Binary); err != nil {
					errs = append(errs, f.Errorf(fmt.Sprintf("targets[%d].build.binary", i), "%v", err))
				}
			}
			specs = append(specs, containerSpec(t, starters))
		default:
			return nil, nil, fmt.Errorf("target %s: kind %q is not supported", t.Name, t.Kind)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	reg := faults.Builtin()
	fs := []faults.Fault{}
	for i, spec := range f.Faults {
		fault, err := reg.New(spec.Name, spec.Settings)
		if err != nil {
			return nil, nil, config.Errors{f.Errorf(fmt.Sprintf("faults[%d]", i), "%v", err)}
		}
		fs = append(fs, fault)
	}
	opts := []harness.Option{
		harness.WithFaults(fs...),
		harness.WithMaxAttempts(f.Retry.MaxAttempts),
		func(o *harness.Options) { o.Backoff = f.Retry.Backoff.Std() },
		harness.WithStuckWait(f.Retry.StuckWait.Std()),
		harness.WithBurst(f.Retry.Burst),
	}
	if ids := selectedChecks(f.Checks); ids != nil {
		opts = append(opts, harness.WithChecks(ids...))
	}
	return specs, opts, nil
}

func paymentsStarter(ignoreKeys bool) harness.FakeStarter {
	return func(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		return payments.New(payments.Options{Ledger: l, IgnoreIdempotencyKeys: ignoreKeys})
	}
}

func emailStarter(ignoreKeys bool) harness.FakeStarter {
	return func(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		return email.New(email.Options{Ledger: l, IgnoreIdempotencyKeys: ignoreKeys})
	}
}

func webhooksStarter(ignoreKeys bool, keyHeader string) harness.FakeStarter {
	return func(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		return webhooks.New(webhooks.Options{Ledger: l, IgnoreIdempotencyKeys: ignoreKeys, KeyHeader: keyHeader})
	}
}

func selectedChecks(c config.Checks) []string {
	if len(c.Only) > 0 {
		return c.Only
	}
	if len(c.Skip) == 0 {
		return nil
	}
	skip := map[string]bool{}
	for _, id := range c.Skip {
		skip[id] = true
	}
	var ids []string
	for _, ch := range harness.Checks() {
		if !skip[ch.ID] {
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

func locator(l *config.Locator) *httptarget.Locator {
	if l == nil {
		return nil
	}
	return &httptarget.Locator{JSON: l.JSON, Header: l.Header}
}

func dryRun(d *config.DryRun) *httptarget.DryRun {
	if d == nil {
		return nil
	}
	return &httptarget.DryRun{Query: d.Query, Header: d.Header, Value: d.Value}
}

func httpSpec(t config.Target, starters []harness.FakeStarter) harness.Spec {
	return httptarget.Spec(httpConfig(t), launch(t.Start), starters...)
}

// httpConfig is the HTTP adapter's configuration of an http or container
// target.
func httpConfig(t config.Target) httptarget.Config {
	cfg := httptarget.Config{
		Name:      t.Name,
		BaseURL:   t.URL,
		KeyHeader: t.KeyHeader,
		Effect:    *locator(&t.Effect),
		Identity:  *locator(&t.Identity),
		DryRun:    dryRun(t.DryRun),
		Timeout:   t.Timeout.Std(),
	}
	for _, op := range t.Operations {
		hop := httptarget.Operation{
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating,
			Method: op.Method, Path: op.Path, Headers: op.Headers, Body: op.Body,
			DryRun: dryRun(op.DryRun), Effect: locator(op.Effect), Identity: locator(op.Identity),
			Inputs: inputs(op.Inputs),
		}
		cfg.Operations = append(cfg.Operations, hop)
	}
	return cfg
}

// launch is how the harness starts an http or webhook target's process;
// nil when it does not.
func launch(s *config.Start) *httptarget.Launch {
	if s == nil {
		return nil
	}
	return &httptarget.Launch{
		Command: s.Command, Env: s.Env, Dir: s.Dir,
		ReadyPath: s.Ready.Path, ReadyTimeout: s.Ready.Timeout.Std(),
	}
}

// inputs converts an operation's or event's input generators.
func inputs(gens map[string]config.Input) map[string]harness.Input {
	out := map[string]harness.Input{}
	for name, in := range gens {
		switch {
		case len(in.Int) == 2:
			out[name] = harness.Input{Kind: "int", Min: in.Int[0], Max: in.Int[1]}
		case len(in.Choice) > 0:
			out[name] = harness.Input{Kind: "choice", Choices: in.Choice}
		case in.String != nil:
			out[name] = harness.Input{Kind: "string", Prefix: in.String.Prefix, Length: in.String.Length}
		}
	}
	return out
}

// cliSpec is the harness spec of a cli target: the tool runs once per
// call, with the target's command, environment and directory.
func cliSpec(t config.Target, starters []harness.FakeStarter) harness.Spec {
	cfg := clitarget.Config{
		Name:           t.Name,
		Command:        t.Command,
		Env:            t.Env,
		Dir:            t.Dir,
		KeyFlag:        t.KeyFlag,
		Effect:         t.Effect.JSON,
		Identity:       t.Identity.JSON,
		Timeout:        t.Timeout.Std(),
		RetryExitCodes: t.RetryExitCodes,
	}
	if t.DryRunFlag != nil {
		cfg.DryRunFlag = *t.DryRunFlag
		cfg.NoDryRun = *t.DryRunFlag == ""
	}
	for _, op := range t.Operations {
		cfg.Operations = append(cfg.Operations, clitarget.Operation{
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating, Args: op.Args, Inputs: inputs(op.Inputs),
		})
	}
	return clitarget.Spec(cfg, starters...)
}

// webhookSpec is the harness spec of a webhook target: idemcheck delivers
// each event to the handler, signed, through the HTTP adapter's fault
// proxy.
func webhookSpec(t config.Target, starters []harness.FakeStarter) harness.Spec {
	cfg := webhook.Config{
		Name:     t.Name,
		BaseURL:  t.URL,
		IDHeader: t.IDHeader,
		Identity: *locator(&t.Identity),
		Timeout:  t.Timeout.Std(),
	}
	if s := t.Signature; s != nil {
		cfg.Signature = webhook.Signature{Secret: string(s.Secret), Header: s.Header, Scheme: s.Scheme, Prefix: s.Prefix}
	}
	for _, ev := range t.Events {
		cfg.Events = append(cfg.Events, webhook.Event{
			Name: ev.Name, Safe: ev.Safe, Path: ev.Path, Headers: ev.Headers, Body: ev.Body, Inputs: inputs(ev.Inputs),
		})
	}
	return webhook.Spec(cfg, launch(t.Start), starters...)
}

// containerSpec is the harness spec of a container target: the HTTP
// adapter in front of a container of t's image, built first (once per run)
// when t says how. Docker is only reached when the target starts, so that
// an engine that is not there is this target's error (exit 3), not the
// configuration's.
func containerSpec(t config.Target, starters []harness.FakeStarter) harness.Spec {
	cfg := httpConfig(t)
	l := container.Launch{Image: t.Image, Cmd: t.Cmd, Env: t.Env, Port: t.Port, User: t.User}
	if r := t.Ready; r != nil {
		l.ReadyPath, l.ReadyTimeout = r.Path, r.Timeout.Std()
	}
	var img *imageBuild
	if b := t.Build; b != nil {
		img = &imageBuild{img: container.Image{Name: b.Name, Tag: b.Tag, Binary: b.Binary}}
		l.Image = img.img.Ref()
	}
	spec := container.Spec(cfg, l, starters...)
	spec.Start = func(ctx context.Context, env *harness.Env) (harness.Target, error) {
		if img != nil {
			if err := img.ensure(ctx); err != nil {
				return nil, fmt.Errorf("target %s: %w", t.Name, err)
			}
		}
		// The container adapter fills in {{port}}, {{state_dir}} and
		// {{fakes.NAME.url}}; the SMTP addresses are filled in here.
		c, run := cfg, l
		c.BaseURL = withSMTP(c.BaseURL, env)
		run.Cmd = make([]string, len(l.Cmd))
		for i, arg := range l.Cmd {
			run.Cmd[i] = withSMTP(arg, env)
		}
		run.Env = make(map[string]string, len(l.Env))
		for k, v := range l.Env {
			run.Env[k] = withSMTP(v, env)
		}
		return container.Spec(c, run, starters...).Start(ctx, env)
	}
	return spec
}

// checkBinary reports a container target's binary that is not there,
// before anything runs: a mistake in the file, not the target's. Whether
// it is a static Linux executable, container.Build says when it builds.
func checkBinary(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the binary %q does not exist (a relative path is taken from the directory idemcheck runs in); build it first, e.g. CGO_ENABLED=0 GOOS=linux go build -o %s ./cmd/yourserver", path, path)
	case err != nil:
		return fmt.Errorf("cannot read the binary %q: %v", path, err)
	case fi.IsDir():
		return fmt.Errorf("%q is a directory; give the path of a static Linux binary", path)
	}
	return nil
}

// imageBuild builds a container target's image at most once per run:
// every trial starts the target afresh, and Build, although it keeps an
// image built from the same binary, reads and hashes the binary each time.
type imageBuild struct {
	img container.Image

	mu    sync.Mutex
	built bool
}

// ensure builds the image unless it was built already. A failed build is
// tried again at the next start.
func (b *imageBuild) ensure(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.built {
		return nil
	}
	pool, err := container.Connect(ctx, "")
	if err != nil {
		return err
	}
	defer func() {
		if pool.Client.HTTPClient != nil {
			pool.Client.HTTPClient.CloseIdleConnections()
		}
	}()
	if err := container.Build(ctx, pool, b.img); err != nil {
		return err
	}
	b.built = true
	return nil
}

var smtpPlaceholder = regexp.MustCompile(`\{\{\s*fakes\.([A-Za-z0-9_\-]+)\.smtp\s*\}\}`)

// withSMTP fills in each {{fakes.NAME.smtp}} of s with the SMTP address of
// that running fake. One it cannot fill in is left for the adapter, which
// reports it.
func withSMTP(s string, env *harness.Env) string {
	return smtpPlaceholder.ReplaceAllStringFunc(s, func(m string) string {
		name := smtpPlaceholder.FindStringSubmatch(m)[1]
		if f, ok := env.Fakes[name].(interface{ SMTPAddr() string }); ok {
			return f.SMTPAddr()
		}
		return m
	})
}
