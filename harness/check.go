package harness

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/idemcheck/idemcheck/faults"
)

// TB is what Check needs of a test; *testing.T has it all.
type TB interface {
	Helper()
	Name() string
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Failed() bool
}

// subtester is a TB that runs named subtests, as *testing.T does.
type subtester interface {
	Run(name string, f func(*testing.T)) bool
}

// Check runs idemcheck on the target spec starts, inside go test: the
// fixed probes, reported as one subtest per check, then generated trials
// (a fresh target and fresh fakes per trial) under rapid in the subtest
// "trials". A failing trial is shrunk to a minimal counterexample, printed
// as a step list with rapid's replay flags (-rapid.seed, -rapid.failfile);
// rapid saves it under testdata/rapid and runs it first next time. Options
// are those of Verify; WithTrials(n) sets how many trials rapid generates
// (rapid's -rapid.checks otherwise, 100 by default, a fifth of it with
// -short), WithTrials(-1) runs none.
func Check(t TB, spec Spec, opts ...Option) {
	t.Helper()
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	trials := o.Trials
	probeOpts := append(append([]Option(nil), opts...), WithTrials(0))
	res, err := Verify(context.Background(), []Spec{spec}, probeOpts...)
	if err != nil {
		t.Fatalf("idemcheck: %v", err)
		return
	}
	tr := res.Targets[0]
	if tr.Error != "" {
		t.Fatalf("idemcheck could not test %s: %s", spec.Name, tr.Error)
		return
	}
	st, canRun := t.(subtester)
	for _, c := range tr.Checks {
		report := func(t TB) {
			t.Helper()
			for _, f := range tr.Findings {
				if f.Check == c.ID {
					t.Errorf("%s", describeFinding(f))
				}
			}
		}
		if canRun {
			st.Run(c.ID, func(t *testing.T) {
				t.Helper()
				if c.Status == StatusSkip {
					t.Skip(c.Note)
				}
				report(t)
			})
		} else {
			report(t)
		}
	}
	if trials < 0 || !canRun {
		return
	}
	st.Run("trials", func(t *testing.T) {
		t.Helper()
		o.fill()
		if trials > 0 {
			rapidMu.Lock()
			setRapidFlag("rapid.checks", strconv.Itoa(trials))
			rapidMu.Unlock()
		}
		info := tr.Record.Target
		sp := space(info, o.Faults, func(f faults.Fault) bool {
			for _, u := range tr.Record.Unsupported {
				if u == f.Name() {
					return false
				}
			}
			return true
		}, tr.Record.CanCrash, burstIf(tr.Record.CanBurst, o.Burst))
		p := &property{ctx: context.Background(), spec: spec, opts: o, space: sp, seed: targetSeed(o.Seed, spec.Name)}
		rapid.Check(t, p.check)
		if p.fatal != nil {
			t.Fatalf("idemcheck could not run a trial: %v", p.fatal)
		}
	})
}

// describeFinding renders a finding with its evidence, for a test log.
func describeFinding(f Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]: %s", f.Check, f.Severity, f.Message)
	for _, in := range f.Evidence.Intents {
		fmt.Fprintf(&b, "\n  intent %d (%s, %s, key %q):", in.ID, in.Operation, in.Role, in.Key)
		for _, a := range in.Attempts {
			fmt.Fprintf(&b, "\n    attempt %d", a.N)
			if a.Fault != "" {
				fmt.Fprintf(&b, " under %s", a.Fault)
			}
			fmt.Fprintf(&b, ": %s %d", a.Outcome, a.Status)
			if a.HasEffect {
				fmt.Fprintf(&b, " effect %q", a.Effect)
			}
			if n := a.LedgerAfter - a.LedgerBefore; n > 0 {
				fmt.Fprintf(&b, ", %d effect(s) recorded meanwhile", n)
			}
		}
	}
	for _, e := range f.Evidence.Effects {
		fmt.Fprintf(&b, "\n  effect %d: %s %s %s", e.Seq, e.Fake, e.Kind, e.ID)
	}
	return b.String()
}

func burstIf(can bool, n int) int {
	if can {
		return n
	}
	return 0
}
