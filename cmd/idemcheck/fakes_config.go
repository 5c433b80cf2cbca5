package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
)

// fakesFromConfig runs the fakes a configuration declares, at their fixed
// addresses (a free port for those without one), and prints for each its
// address and the environment line to give a service started by hand.
func fakesFromConfig(ctx context.Context, path string, stdout io.Writer) error {
	f, err := config.Load(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err, hint: "see the configuration section of the README"}
	}
	if err := f.CheckFree(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ledger := fakes.NewLedger()
	type line struct{ name, addr, env, control string }
	var lines []line
	names := envNames(f)
	if p := f.Fakes.Payments; p != nil {
		s, err := payments.New(payments.Options{Addr: p.Listen, Ledger: ledger, IgnoreIdempotencyKeys: !*p.HonourKeys, ControlAddr: controlAddr})
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("fakes.payments: %w", err)}
		}
		defer s.Close()
		lines = append(lines, line{"payments", s.URL(), names.line("payments.url", "PAYMENTS_URL", s.URL()), s.ControlURL()})
	}
	if e := f.Fakes.Email; e != nil {
		s, err := email.New(email.Options{Addr: e.Listen, SMTPAddr: e.SMTP, Ledger: ledger, IgnoreIdempotencyKeys: !*e.HonourKeys, ControlAddr: controlAddr})
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("fakes.email: %w", err)}
		}
		defer s.Close()
		lines = append(lines, line{"email", s.URL(), names.line("email.url", "EMAIL_URL", s.URL()), s.ControlURL()},
			line{"email smtp", s.SMTPAddr(), names.line("email.smtp", "SMTP_ADDR", s.SMTPAddr()), ""})
	}
	if w := f.Fakes.Webhooks; w != nil {
		s, err := webhooks.New(webhooks.Options{Addr: w.Listen, Ledger: ledger, IgnoreIdempotencyKeys: !*w.HonourKeys, KeyHeader: w.KeyHeader, ControlAddr: controlAddr})
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("fakes.webhooks: %w", err)}
		}
		defer s.Close()
		lines = append(lines, line{"webhooks", s.URL(), names.line("webhooks.url", "WEBHOOKS_URL", s.URL()), s.ControlURL()})
	}
	if len(lines) == 0 {
		return usageErr("fakes: %s declares no fakes (fakes: payments, email, webhooks)", path)
	}
	for _, l := range lines {
		if l.control != "" {
			l.env += "  control " + l.control
		}
		fmt.Fprintf(stdout, "%-11s %-28s %s\n", l.name, l.addr, l.env)
	}
	fmt.Fprintln(stdout, controlNote)
	fmt.Fprintln(stdout, "press Ctrl-C to stop (stop it before idemcheck run, which starts these fakes itself)")
	<-ctx.Done()
	return nil
}

// envNamer knows which environment variable the configuration gives each
// fake's address to.
type envNamer map[string]string // placeholder (payments.url) → variable

// envNames reads the variables of the targets' environments whose value
// is exactly a fake's placeholder.
func envNames(f *config.File) envNamer {
	n := envNamer{}
	for _, t := range f.Targets {
		envs := []map[string]string{t.Env}
		if t.Start != nil {
			envs = append(envs, t.Start.Env)
		}
		for _, env := range envs {
			keys := make([]string, 0, len(env))
			for k := range env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := strings.TrimSpace(env[k])
				if strings.HasPrefix(v, "{{fakes.") && strings.HasSuffix(v, "}}") {
					ph := strings.TrimSuffix(strings.TrimPrefix(v, "{{fakes."), "}}")
					if _, seen := n[ph]; !seen {
						n[ph] = k
					}
				}
			}
		}
	}
	return n
}

// line is the environment line for a fake's address: the configuration's
// variable for it, else a conventional one.
func (n envNamer) line(placeholder, fallback, value string) string {
	name := fallback
	if v, ok := n[placeholder]; ok {
		name = v
	}
	return name + "=" + value
}
