package engine

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// runTrials runs the saved trials of the configuration's Replay first
// (one that still fails is the counterexample, and nothing is generated),
// then generates trials over sp until one fails (then shrinks it on fresh
// instances of the target and replays it: see confirm) or Trials have
// passed; past a failure that never happens again on replay the trials go
// on, up to flakyRounds failures in all. The trials share a running
// target (one per worker: see explore) unless FreshTrials. A trial fails
// only on a finding that s.known, the probes' findings, does not already
// hold. Waiting faults, and the waits before a retry, keep the target's
// pace (see Session.forTrials).
//
// s.probes, when not nil, says that the probes were not done when the
// trials started: s.known holds the findings of those done, and the rest
// arrive through it before a failing trial is shrunk.
func (s *Session) runTrials(sp scenarios.Space) (*record.ScenarioResult, error) {
	s.alone = sp.Alone
	res := &record.ScenarioResult{}
	defer func() {
		if res.Counterexample != nil {
			res.Steps = res.Counterexample.Describe(sp)
		}
	}()
	if s.probes != nil && len(s.cfg.Replay) > 0 {
		// Saved trials are judged against every probe's findings.
		all, ok := s.probes.wait()
		if !ok {
			return res, nil
		}
		s.known, s.probes = all, nil
	}
	for _, saved := range s.cfg.Replay {
		if saved.Target != "" && saved.Target != s.spec.Name {
			continue
		}
		rec, err := s.freshRun(s.nextNonce(), s.seed, saved.Trial)
		fs, err := s.trialFindings(rec, err)
		if err != nil {
			return res, err
		}
		res.Replayed = append(res.Replayed, record.ReplayedTrial{Trial: saved.Trial, StillFail: len(fs) > 0, Checks: findingChecks(fs)})
		if len(fs) > 0 && res.Counterexample == nil {
			tr := saved.Trial
			res.Counterexample, res.Record, res.Findings = &tr, rec, fs
		}
	}
	if s.cfg.Trials <= 0 || res.Counterexample != nil {
		return res, nil
	}
	p := &property{s: s, space: sp, start: time.Now(), said: time.Now()}
	if s.probes != nil {
		p.pending = s.probes.pending
	}
	defer p.closeHosts()
	total := s.cfg.Trials
	from := 0
	for round := 1; ; round++ {
		began := time.Now()
		p.mu.Lock()
		p.from, p.ended = from, 0
		p.mu.Unlock()
		p.explore(from)
		res.Elapsed += time.Since(began)
		if s.probes != nil && (p.failed > 0 || p.deferred > 0) {
			all, ok := s.probes.wait()
			if !ok {
				return res, nil // the probes could not be done: their error is the target's
			}
			p.settle(all)
		}
		res.Trials, res.Stopped = p.n, p.stopped
		if p.failed > 0 {
			// The trials after the first failing one that were already
			// running when it failed do not count: the same seed reports
			// the same number.
			res.Trials = p.failed
		}
		if p.fatal != nil {
			return res, p.fatal
		}
		if p.last == nil {
			return res, nil
		}
		s.say("%s: trial %d of %d failed; shrinking it", s.spec.Name, p.failed, total)
		confirmed := s.confirm(record.ScenarioResult{Counterexample: p.last, Record: p.lastRec, Findings: p.lastFs}, p.failed)
		res.Counterexample, res.Record, res.Findings = confirmed.Counterexample, confirmed.Record, confirmed.Findings
		res.Replays, res.Reproduced, res.Flaky = confirmed.Replays, confirmed.Reproduced, confirmed.Flaky
		if !res.Flaky || round == flakyRounds || p.failed >= total || p.stopped != "" || s.ctx.Err() != nil {
			return res, nil
		}
		// Seen once and never again: the trials go on from the next one,
		// for a failure that happens again, so that whether a flaw that
		// shows only now and then counts does not hang on one trial.
		s.say("%s: trial %d failed once and never again on replay; the trials go on", s.spec.Name, p.failed)
		// Fresh instances: what the trials after it find must not hang
		// on those that ran past it before it failed.
		p.closeHosts()
		from = p.failed
		p.failed, p.last, p.lastRec, p.lastFs = 0, nil, nil, nil
		p.deferred, p.defTrial, p.defRec, p.defFs = 0, nil, nil, nil
	}
}

// flakyRounds bounds the failing trials that never fail again on replay:
// the trials go on past the first two; the third ends them.
const flakyRounds = 3

// say tells the progress a line, if anyone listens.
func (s *Session) say(format string, args ...any) {
	if s.progress != nil {
		s.progress(fmt.Sprintf(format, args...))
	}
}

// findingChecks returns the distinct checks of fs, sorted.
func findingChecks(fs []record.Finding) []string {
	seen := map[string]bool{}
	var ids []string
	for _, f := range fs {
		if !seen[f.Check] {
			seen[f.Check] = true
			ids = append(ids, f.Check)
		}
	}
	sort.Strings(ids)
	return ids
}

// progressEvery is the longest time between two progress lines of a
// target's trials.
const progressEvery = 2 * time.Second

// trialProgress is the progress line after done of total trials took
// elapsed: how many, the time left at this pace, and the budget left.
func trialProgress(name string, done, total int, elapsed, budget time.Duration) string {
	line := fmt.Sprintf("%s: %d of %d trials", name, done, total)
	if done > 0 && done < total {
		eta := elapsed / time.Duration(done) * time.Duration(total-done)
		if budget > 0 {
			eta = min(eta, max(budget-elapsed, 0))
		}
		line += fmt.Sprintf(", about %s left", eta.Round(time.Second))
	}
	if budget > 0 {
		line += fmt.Sprintf(", %s of the budget left", max(budget-elapsed, 0).Round(time.Second))
	}
	return line
}

// trialFindings judges the run of a generated trial: the findings the
// probes did not show. A trial after which the target stopped answering
// (a lock or a claim it never lets go) is a finding of its own, not an
// error: the target already scored through the probes, and the trial's
// steps are the history that makes it hang. Other errors are returned.
func (s *Session) trialFindings(rec *record.Record, err error) ([]record.Finding, error) {
	var (
		hang *hangError
		down *downError
	)
	if err != nil && ((!errors.As(err, &hang) && !errors.As(err, &down)) || rec == nil || s.ctx.Err() != nil) {
		return nil, err
	}
	_, fs := checks.Evaluate(rec)
	fs = checks.Novel(s.known, fs)
	switch {
	case hang != nil:
		fs = append(fs, hangFinding(rec, hang))
	case down != nil:
		fs = append(fs, downFinding(rec, down))
	}
	return fs, nil
}

// downFinding reports a trial after which the target's process exited
// by itself, under the check that owns the trial's first fault, else
// retry.sequential: what the steps did ended the server.
func downFinding(rec *record.Record, down *downError) record.Finding {
	f := record.Finding{Check: checks.CheckRetrySequential, Severity: record.Major}
	for _, in := range rec.Intents {
		if in.Faulted() && f.Fault == "" {
			for _, a := range in.Attempts {
				if a.Fault != "" {
					f.Check, f.Fault = checks.CheckRetryAfterFault, a.Fault
					if a.FaultClass != "" {
						f.Check = checks.FaultOwner(faults.Class(a.FaultClass))
					}
					break
				}
			}
		}
	}
	if n := len(rec.Intents); n > 0 {
		last := rec.Intents[n-1]
		f.Operation = last.Operation
		f.Evidence.Intents = []record.Intent{last}
	}
	f.Message = fmt.Sprintf("%s: after this trial's steps the target %s. A request the target cannot serve, or a failure around it, must be answered with an error, not end the server",
		f.Operation, strings.TrimPrefix(down.msg, "the target "))
	return f
}

// hangFinding reports the intents of a trial that got no reply once the
// target stopped answering, under retry.after-fault when a fault came
// before (what the fault left held is the likely cause), else under
// retry.sequential.
func hangFinding(rec *record.Record, hang *hangError) record.Finding {
	f := record.Finding{Check: checks.CheckRetrySequential, Severity: record.Major}
	var stuck []record.Intent
	for _, in := range rec.Intents {
		if in.Faulted() {
			f.Check = checks.CheckRetryAfterFault
			for _, a := range in.Attempts {
				if f.Fault != "" {
					break
				}
				f.Fault = a.Fault // the first fault, whichever attempt met it
			}
		}
		if len(in.Attempts) > 0 && !in.Acknowledged() {
			last := in.Attempts[len(in.Attempts)-1]
			if silence(last) && last.Fault == "" {
				stuck = append(stuck, in)
				f.Operation = in.Operation
			}
		}
	}
	if f.Operation == "" && len(rec.Intents) > 0 {
		f.Operation = rec.Intents[len(rec.Intents)-1].Operation
	}
	f.Evidence.Intents = stuck
	f.Message = fmt.Sprintf("%s: after this trial's steps the target stopped answering: %s. A call that never returns is retried by no one: bound every wait (a lock, a claim another request holds) and release what a failed or abandoned request held",
		f.Operation, strings.TrimPrefix(strings.TrimPrefix(hang.msg, "the target never answered: "), "the target stopped answering: "))
	return f
}
