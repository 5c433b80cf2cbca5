package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/keys"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/container"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// Specs turns a validated configuration into what the harness runs: one
// harness.Spec per target, with the fakes the file configures, and the
// options (faults, checks, retries) that the file sets. A Go program that
// calls it gets exactly what idemcheck run gets from the same file.
//
// A target kind is built by its case of the switch below, from the
// adapter's own Spec.
func (f *File) Specs() ([]harness.Spec, []harness.Option, error) {
	var starters []harness.FakeStarter
	if p := f.Fakes.Payments; p != nil {
		starters = append(starters, payments.Starter(payments.Options{Addr: p.Listen, IgnoreIdempotencyKeys: ignores(p.HonourKeys)}))
	}
	if e := f.Fakes.Email; e != nil {
		starters = append(starters, email.Starter(email.Options{Addr: e.Listen, SMTPAddr: e.SMTP, IgnoreIdempotencyKeys: ignores(e.HonourKeys)}))
	}
	if w := f.Fakes.Webhooks; w != nil {
		starters = append(starters, webhooks.Starter(webhooks.Options{Addr: w.Listen, IgnoreIdempotencyKeys: ignores(w.HonourKeys), KeyHeader: w.KeyHeader}))
	}
	var specs []harness.Spec
	var errs Errors
	for i, t := range f.Targets {
		t = f.resolved(t)
		switch t.Kind {
		case KindHTTP:
			l := launch(t.Start)
			if l != nil {
				l.Replicas = t.Replicas
			}
			spec := httptarget.Spec(httpConfig(t), l, starters...)
			spec.Observers = observers(t.Observe)
			specs = append(specs, spec)
		case KindCLI:
			specs = append(specs, cliSpec(t, starters))
		case KindWebhook:
			specs = append(specs, webhookSpec(t, starters))
		case KindMCP:
			specs = append(specs, mcpSpec(t, starters))
		case KindContainer:
			if b := t.Build; b != nil {
				if err := checkBinary(f.Targets[i].Build.Binary, b.Binary, f.base); err != nil {
					errs = append(errs, f.Errorf(fmt.Sprintf("targets[%d].build.binary", i), "%v", err))
				}
			}
			specs = append(specs, containerSpec(t, starters))
		default:
			return nil, nil, Errors{f.Errorf(fmt.Sprintf("targets[%d].kind", i), "kind %q is not supported", t.Kind)}
		}
		format, err := keys.Parse(t.KeyFormat)
		if err != nil { // validated when the file was loaded; a File built in Go may not be
			errs = append(errs, f.Errorf(fmt.Sprintf("targets[%d].key_format", i), "%v", err))
		}
		specs[len(specs)-1].KeyFormat = format
		if t.FreshTrials {
			specs[len(specs)-1].Options = append(specs[len(specs)-1].Options, harness.WithFreshTrials())
		}
		if t.TrialWorkers > 0 {
			specs[len(specs)-1].Options = append(specs[len(specs)-1].Options, harness.WithTrialWorkers(t.TrialWorkers))
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
			return nil, nil, Errors{f.Errorf(fmt.Sprintf("faults[%d]", i), "%v", err)}
		}
		fs = append(fs, fault)
	}
	opts := []harness.Option{
		harness.WithFaults(fs...),
		harness.WithMaxAttempts(f.Retry.MaxAttempts),
		func(o *harness.Options) { o.Backoff = f.Retry.Backoff.Std() },
		harness.WithStuckWait(f.Retry.StuckWait.Std()),
		harness.WithBurst(f.Retry.Burst),
		lateOption(f.Retry),
	}
	opts = append(opts, f.Bursts.options()...)
	if ids := selectedChecks(f.Checks); ids != nil {
		opts = append(opts, harness.WithChecks(ids...))
	}
	if len(f.FixedAddresses()) > 0 {
		// Fakes at fixed addresses exist once: one target at a time.
		opts = append(opts, harness.WithParallel(1))
	}
	return specs, opts, nil
}

// ignores says whether a fake told honour_keys: false ignores keys.
func ignores(honour *bool) bool { return honour != nil && !*honour }

func selectedChecks(c Checks) []string {
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

func locator(l *Locator) *httptarget.Locator {
	if l == nil {
		return nil
	}
	return &httptarget.Locator{JSON: l.JSON, Header: l.Header}
}

func dryRun(d *DryRun) *httptarget.DryRun {
	if d == nil {
		return nil
	}
	return &httptarget.DryRun{Query: d.Query, Header: d.Header, Value: d.Value}
}

// httpConfig is the HTTP adapter's configuration of an http or container
// target.
func httpConfig(t Target) httptarget.Config {
	cfg := httptarget.Config{
		Name:      t.Name,
		BaseURL:   t.URL,
		KeyHeader: t.KeyHeader,
		Effect:    *locator(&t.Effect),
		Identity:  *locator(&t.Identity),
		DryRun:    dryRun(t.DryRun),
		Timeout:   t.Timeout.Std(),
		Remote:    t.Remote,
		Profile:   t.Profile,
	}
	for _, c := range t.Callers {
		cfg.Callers = append(cfg.Callers, httptarget.Caller{Headers: c.Headers})
	}
	if l := t.Limits; l != nil {
		cfg.Limits = httptarget.Limits{Requests: l.Requests, PerSecond: l.PerSecond}
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
func launch(s *Start) *httptarget.Launch {
	if s == nil {
		return nil
	}
	return &httptarget.Launch{
		Command: s.Command, Env: s.Env, Dir: s.Dir,
		ReadyPath: s.Ready.Path, ReadyTimeout: s.Ready.Timeout.Std(),
	}
}

// inputs converts an operation's or event's input generators.
func inputs(gens map[string]Input) map[string]harness.Input {
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
func cliSpec(t Target, starters []harness.FakeStarter) harness.Spec {
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
func webhookSpec(t Target, starters []harness.FakeStarter) harness.Spec {
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
// when t says how.
func containerSpec(t Target, starters []harness.FakeStarter) harness.Spec {
	l := container.Launch{Image: t.Image, Cmd: t.Cmd, Env: t.Env, Port: t.Port, User: t.User}
	if r := t.Ready; r != nil {
		l.ReadyPath, l.ReadyTimeout = r.Path, r.Timeout.Std()
	}
	if b := t.Build; b != nil {
		l.Build = &container.Image{Name: b.Name, Tag: b.Tag, Binary: b.Binary}
	}
	spec := container.Spec(httpConfig(t), l, starters...)
	spec.Observers = observers(t.Observe)
	return spec
}

// checkBinary reports a container target's binary that is not there,
// before anything runs: a mistake in the file, not the target's. Whether
// it is a static Linux executable, container.Build says when it builds.
// written is the path as the file writes it, path as resolved from base.
func checkBinary(written, path, base string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the binary %q does not exist%s; build it first, e.g. CGO_ENABLED=0 GOOS=linux go build -o %s ./cmd/yourserver", written, relativeNote(written, base), path)
	case err != nil:
		return fmt.Errorf("cannot read the binary %q: %v", written, err)
	case fi.IsDir():
		return fmt.Errorf("%q is a directory; give the path of a static Linux binary", written)
	}
	return nil
}
