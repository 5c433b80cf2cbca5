package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// confirm shrinks failed, the first failing trial (its counterexample,
// record and new findings), trial number n, and replays the minimal one:
// the result says how often it failed again. When the minimal trial never
// does, the trial as drawn is replayed too, since shrinking may have
// dropped what made the failure likely (an overlap, a burst): if it fails
// again, it is what is reported.
func (s *Session) confirm(failed record.ScenarioResult, n int) *record.ScenarioResult {
	res := &record.ScenarioResult{Counterexample: failed.Counterexample, Record: failed.Record, Findings: failed.Findings}
	s.minimize(res, n)
	s.replayCounterexample(res)
	if !res.Flaky || s.ctx.Err() != nil {
		return res
	}
	whole := &record.ScenarioResult{Counterexample: failed.Counterexample, Record: failed.Record, Findings: failed.Findings}
	s.replayCounterexample(whole)
	if !whole.Flaky {
		return whole
	}
	return res
}

// counterexampleReplays is how many times a minimal counterexample is run
// again, each on a fresh target, before it is reported.
const counterexampleReplays = 3

// replayCounterexample runs res's minimal counterexample again
// counterexampleReplays times and counts the runs that fail the same
// checks; none makes it flaky. Honest: a failure is reported with how
// often it happens.
func (s *Session) replayCounterexample(res *record.ScenarioResult) {
	want := strings.Join(findingChecks(res.Findings), ",")
	for k := range counterexampleReplays {
		if s.ctx.Err() != nil {
			return
		}
		rec, err := s.freshRun(s.nextNonce(), s.seed^0xfeed^uint64(k)<<32, *res.Counterexample)
		again, err := s.trialFindings(rec, err)
		if err != nil {
			continue // a replay that could not run shows nothing either way
		}
		res.Replays++
		if strings.Join(findingChecks(again), ",") == want {
			res.Reproduced++
		}
	}
	res.Flaky = res.Replays > 0 && res.Reproduced == 0
}

// minimize shrinks res's failing trial, trial number n, a step at a time:
// it drops whole steps, lowers the number of other keys and the length of
// waits (by bisection), then drops faults, restarts, give-ups and
// overlaps, keeping each change while the trial still fails the same
// checks. Progress is told at least every progressEvery: how many runs
// the shrinking made and how many steps the trial has left.
func (s *Session) minimize(res *record.ScenarioResult, n int) {
	want := strings.Join(findingChecks(res.Findings), ",")
	runs, last := 0, time.Now()
	try := func(tr scenarios.Trial) bool {
		if s.ctx.Err() != nil || tr.Validate() != nil {
			return false
		}
		runs++
		if s.progress != nil && time.Since(last) >= progressEvery {
			last = time.Now()
			s.progress(fmt.Sprintf("%s: shrinking trial %d: %d runs, down to %d steps so far", s.spec.Name, n, runs, len(res.Counterexample.Steps)))
		}
		rec, err := s.freshRun(s.nextNonce(), s.seed^0x5eed, tr)
		fs, err := s.trialFindings(rec, err)
		if err != nil {
			return false
		}
		if len(fs) == 0 || strings.Join(findingChecks(fs), ",") != want {
			return false
		}
		res.Counterexample, res.Record, res.Findings = &tr, rec, fs
		return true
	}
	bound := 30 * time.Second
	if s.cfg.Budget > 0 {
		bound = min(bound, max(s.cfg.Budget/2, 5*time.Second))
	}
	deadline := time.Now().Add(bound)
	for i := len(res.Counterexample.Steps) - 1; i >= 0 && time.Now().Before(deadline); i-- {
		if cand, ok := without(*res.Counterexample, i); ok {
			try(cand)
		}
	}
	// The fewest other keys, and the shortest waits, that still show it:
	// "after N other keys" then says how small the store is.
	for i := range res.Counterexample.Steps {
		for _, shrink := range []func(*scenarios.Step, int) bool{
			func(st *scenarios.Step, k int) bool { ok := k < st.Fill && k > 0; st.Fill = k; return ok },
			func(st *scenarios.Step, k int) bool {
				w := time.Duration(k) * time.Millisecond
				ok := w < st.Wait && w > 0
				st.Wait = w
				return ok
			},
		} {
			hi := res.Counterexample.Steps[i].Fill
			if res.Counterexample.Steps[i].Wait > 0 {
				hi = int(res.Counterexample.Steps[i].Wait / time.Millisecond)
			}
			lo := 1
			for lo < hi && time.Now().Before(deadline) {
				mid := lo + (hi-lo)/2
				cand := scenarios.Trial{Steps: append([]scenarios.Step(nil), res.Counterexample.Steps...)}
				if !shrink(&cand.Steps[i], mid) {
					break
				}
				if try(cand) {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
		}
	}
	for i := range res.Counterexample.Steps {
		if time.Now().After(deadline) {
			return
		}
		for _, simplify := range []func(*scenarios.Step) bool{
			func(st *scenarios.Step) bool { ok := st.Fault != ""; st.Fault = ""; return ok },
			func(st *scenarios.Step) bool { ok := st.Restart; st.Restart = false; return ok },
			func(st *scenarios.Step) bool { ok := st.GiveUp; st.GiveUp = false; return ok },
			func(st *scenarios.Step) bool { ok := st.With; st.With = false; return ok },
		} {
			cand := scenarios.Trial{Steps: append([]scenarios.Step(nil), res.Counterexample.Steps...)}
			if simplify(&cand.Steps[i]) {
				try(cand)
			}
		}
	}
}

// without returns tr with step i removed, references renumbered; ok is
// false when a later step refers to step i.
func without(tr scenarios.Trial, i int) (scenarios.Trial, bool) {
	var out scenarios.Trial
	for j, s := range tr.Steps {
		if j == i {
			continue
		}
		if j == i+1 && !tr.Steps[i].With {
			s.With = false // the group loses its first step: the next leads it
		}
		if j > i && (s.Key == scenarios.Again || s.Key == scenarios.Twin || s.Key == scenarios.Changed) {
			switch {
			case s.Of == i:
				return tr, false
			case s.Of > i:
				s.Of--
			}
		}
		out.Steps = append(out.Steps, s)
	}
	return out, len(out.Steps) > 0
}
