package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/internal/bubble"
	"github.com/idemcheck/idemcheck/record"
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

// DefaultCheckTrials is how many trials Check generates when WithTrials
// does not say (a fifth of it with go test -short).
const DefaultCheckTrials = 100

// Check runs idemcheck on the target spec starts, inside go test: one
// Verify runs the fixed probes and the generated trials (drawn by rapid's
// generators, sharing one started target unless WithFreshTrials; a target
// whose every start is its own instance runs them while the probes' late
// retries wait). The probes are reported as one subtest per check, which
// fails on every probe finding of its check; the trials in the subtest
// "trials", which fails only on a trial finding the probes did not report
// and that happened again on replay (one seen once is logged): the trial
// is shrunk to a minimal counterexample, printed as a step list with the
// seed that reproduces it (WithSeed fixes every choice, the trials'
// included). Options are those of Verify; WithTrials(n) sets how many
// trials are generated (DefaultCheckTrials otherwise, a fifth of it with
// -short), WithTrials(-1) runs none; a TB that runs no subtests, or one
// in a bubble of testing/synctest (where no subtest may start), has its
// checks and trials reported on itself.
//
// The target's score and its reason are logged (go test -v shows them),
// and the test fails when the score is below DefaultMinScore, or the one
// WithMinScore gives. WithSkip and WithChecks leave checks out; a run
// without every check shows no full score, so without WithMinScore its
// score is logged, not required.
func Check(t TB, spec Spec, opts ...Option) {
	t.Helper()
	var o Options
	for _, fn := range opts {
		fn(&o)
	}
	minScore, gated := o.gate()
	st, canRun := t.(subtester)
	if bubble.In() {
		// testing/synctest allows no subtest inside a bubble: the checks
		// and the trials are reported on t itself.
		canRun = false
	}
	trials := o.Trials
	switch {
	case trials < 0:
		trials = 0
	case trials == 0:
		trials = DefaultCheckTrials
		if testing.Short() {
			trials /= 5
		}
	}
	// One Verify runs the probes and the trials, as idemcheck run does:
	// the trials of a target that can have an instance of its own run
	// while the probes' late retries wait.
	res, trialsFailed, err := verify(context.Background(), []Spec{spec}, append(append([]Option(nil), opts...), WithTrials(trials)))
	if err != nil {
		t.Fatalf("idemcheck: %v", err)
		return
	}
	tr := res.Targets[0]
	var trialErr string
	if trialsFailed[0] {
		// The probes' record is whole: report it, and the trials' error
		// in their subtest.
		trialErr, tr.Error, tr.Scenario = tr.Error, "", nil
		checks.Score(&tr)
	}
	if tr.Error != "" {
		t.Fatalf("idemcheck could not test %s: %s%s", spec.Name, bubbleHint(), tr.Error)
		return
	}
	logScore(t, tr, minScore, gated)
	for _, c := range tr.Checks {
		report := func(t TB) {
			t.Helper()
			for _, f := range tr.Findings {
				if f.Check == c.ID && !f.Trial {
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
	if trials == 0 {
		return
	}
	reportTrials := func(t TB) {
		t.Helper()
		if trialErr != "" {
			t.Fatalf("idemcheck could not run a trial: %s", trialErr)
			return
		}
		sc := tr.Scenario
		if sc == nil {
			return
		}
		t.Logf("idemcheck: %d generated trials (seed %d)", sc.Trials, res.Seed)
		if sc.Counterexample == nil {
			return
		}
		var b strings.Builder
		for _, f := range sc.Findings {
			fmt.Fprintf(&b, "\n  %s %s: %s", f.Severity, f.Check, f.Message)
		}
		report := t.Errorf
		if sc.Flaky {
			// Seen once, never again: said, but no failure that would
			// come and go between runs of the same seed.
			report = t.Logf
		}
		report("idemcheck: a generated trial found what the probes did not (%s); the trial:\n%s\nfindings:%s\nTo reproduce, run with WithSeed(%d), or save it for WithReplay.",
			sc.Rate(), sc.Counterexample, b.String(), res.Seed)
	}
	if !canRun {
		reportTrials(t) // on the test itself, as the checks are
		return
	}
	st.Run("trials", func(t *testing.T) {
		t.Helper()
		reportTrials(t)
	})
}

// logScore logs the target's score and why, and fails the test when the
// score is below minScore.
func logScore(t TB, tr TargetResult, minScore int, gated bool) {
	t.Helper()
	sc := tr.Score
	t.Logf("idemcheck: %s scored %d of 3: %s", tr.Name, sc.Level, sc.Reason)
	if sc.Next != nil {
		t.Logf("idemcheck: to reach level %d: %s", sc.Next.Level, sc.Next.Message)
	}
	switch {
	case !gated:
		t.Logf("idemcheck: the score is not required (some checks were left out, or WithMinScore(0))")
	case sc.Level < minScore:
		t.Errorf("idemcheck: %s scored %d, below the required %d (WithMinScore sets it): %s", tr.Name, sc.Level, minScore, sc.Reason)
	}
}

// describeFinding renders a finding with its evidence, for a test log.
func describeFinding(f record.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]: %s", f.Check, f.Severity, f.Message)
	for _, in := range f.Evidence.Intents {
		fmt.Fprintf(&b, "\n  intent %d (%s, %s, key %q):", in.ID, in.Operation, in.Role, in.Key)
		// Attempts alike in a row (a burst's copies) are one line.
		for i := 0; i < len(in.Attempts); {
			what := attemptLine(in.Attempts[i])
			j := i + 1
			for j < len(in.Attempts) && attemptLine(in.Attempts[j]) == what {
				j++
			}
			if j-i > 1 {
				fmt.Fprintf(&b, "\n    attempts %d–%d%s", in.Attempts[i].N, in.Attempts[j-1].N, what)
			} else {
				fmt.Fprintf(&b, "\n    attempt %d%s", in.Attempts[i].N, what)
			}
			i = j
		}
	}
	for i, e := range f.Evidence.Effects {
		if i == maxEffectLines && len(f.Evidence.Effects) > i+1 {
			fmt.Fprintf(&b, "\n  … and %d more effects (the report lists them all)", len(f.Evidence.Effects)-i)
			break
		}
		fmt.Fprintf(&b, "\n  effect %d: %s %s %s", e.Seq, e.Fake, e.Kind, e.ID)
	}
	return b.String()
}

// maxEffectLines is how many of a finding's effects a test's failure
// lists; the report has them all.
const maxEffectLines = 10

// attemptLine is what an attempt showed, after its number.
func attemptLine(a record.Attempt) string {
	var b strings.Builder
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
	return b.String()
}

// bubbleHint is what to say first of why a target could not be tested,
// in a bubble of testing/synctest: there the handler and the fakes take
// no connection over TCP, and a handler that dials the fakes (its answers
// may not say so) is refused, which the rest of the reason may put down
// to something else.
func bubbleHint() string {
	if !bubble.In() {
		return ""
	}
	return "in a bubble of testing/synctest the handler and the fakes take no connection over TCP, only in memory: first see that the handler calls the fakes with env.HTTPClient(), not another client, whose connections are refused there; what the run saw: "
}
