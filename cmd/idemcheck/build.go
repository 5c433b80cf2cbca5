package main

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
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
	var specs []harness.Spec
	for _, t := range f.Targets {
		switch t.Kind {
		case config.KindHTTP:
			specs = append(specs, httpSpec(t, starters))
		case config.KindCLI:
			specs = append(specs, cliSpec(t, starters))
		default:
			return nil, nil, fmt.Errorf("target %s: kind %q is not supported", t.Name, t.Kind)
		}
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
			Inputs: inputs(op),
		}
		cfg.Operations = append(cfg.Operations, hop)
	}
	var launch *httptarget.Launch
	if s := t.Start; s != nil {
		launch = &httptarget.Launch{
			Command: s.Command, Env: s.Env, Dir: s.Dir,
			ReadyPath: s.Ready.Path, ReadyTimeout: s.Ready.Timeout.Std(),
		}
	}
	return httptarget.Spec(cfg, launch, starters...)
}

// inputs converts an operation's input generators.
func inputs(op config.Operation) map[string]harness.Input {
	out := map[string]harness.Input{}
	for name, in := range op.Inputs {
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
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating, Args: op.Args, Inputs: inputs(op),
		})
	}
	return clitarget.Spec(cfg, starters...)
}
