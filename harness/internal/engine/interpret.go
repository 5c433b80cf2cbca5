package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/bubble"
	"github.com/idemcheck/idemcheck/record"
)

// This file is the one interpreter of probes: the fixed probes the checks
// declare and the generated trials (compiled into probes by compileTrial)
// run through runSteps, so that what a key, a role, a fault, a retry, a
// restart or a pause means is said once.

// probeRun is a probe being run: the intents its steps made so far.
type probeRun struct {
	p checks.Probe
	// serves are the checks that planned the probe (Intent.PlannedFor).
	serves []string
	first  int
	// made are the steps' intents (as they were when made), at their
	// indices in the record; a pause makes none (nil, -1).
	made []*record.Intent
	at   []int
	// paused is the time the probe's pauses took so far; pausedAt, its
	// value when each intent (by index in the record) was made.
	paused   time.Duration
	pausedAt map[int]time.Duration
	// retried says which intents (by index in the record) a step retried
	// already.
	retried map[int]bool
	// others is how many keys other than its first the probe sends (for
	// retry.late's, late_keys), when it sends fillers, else 0; othersSent
	// is how many of them it has sent so far, in every run of fillers
	// and alone: the progress line counts them (fillersLabel). firstKey is
	// the step of the probe's first key, which is not one of them.
	others, othersSent, firstKey int
}

// sendsKey says whether step s sends a key of its own, one no step
// before it sent (a fresh-keyed intent).
func sendsKey(s checks.Step) bool {
	return s.Pause == 0 && !s.Again && s.KeyFrom < 0 && !s.NoKey
}

// countOthers sets pr.others and pr.firstKey from the probe's steps: the
// steps that send a key of their own, the first excepted, when one of
// them is a filler; none otherwise.
func (pr *probeRun) countOthers() {
	pr.firstKey = -1
	fillers := false
	for i, s := range pr.p.Steps {
		if !sendsKey(s) {
			continue
		}
		if pr.firstKey < 0 {
			pr.firstKey = i
		} else {
			pr.others++
		}
		fillers = fillers || s.Role == record.RoleFiller
	}
	if !fillers {
		pr.others = 0
	}
}

// isOther says whether step i sends one of the probe's other keys
// (probeRun.others).
func (pr *probeRun) isOther(i int) bool {
	return pr.others > 0 && i != pr.firstKey && sendsKey(pr.p.Steps[i])
}

// sentOthers counts n more of the probe's other keys sent, and says so on
// the progress line.
func (r *runner) sentOthers(pr *probeRun, n int) {
	if n == 0 {
		return
	}
	pr.othersSent += n
	r.probing(fillersLabel(probeLabel(pr.p), pr.othersSent, pr.others))
}

// add records the intent a step made or retried, at index at of the record.
func (pr *probeRun) add(in *record.Intent, at int) {
	pr.made, pr.at = append(pr.made, in), append(pr.at, at)
	if _, ok := pr.pausedAt[at]; !ok && at >= 0 {
		pr.pausedAt[at] = pr.paused
	}
}

// label is what the intents of step s are called: its own label, or the
// probe's name.
func (pr *probeRun) label(s checks.Step) string {
	if s.Label != "" {
		return s.Label
	}
	return pr.p.Name
}

// runProbe runs the steps of p, its tail excepted, and returns the probe
// run when a tail (Probe.Tail) is left to run after the other probes.
func (r *runner) runProbe(info record.TargetInfo, p checks.Probe, serves []string, firstID int) *probeRun {
	pr := &probeRun{p: p, serves: serves, first: firstID, made: make([]*record.Intent, 0, len(p.Steps)), at: make([]int, 0, len(p.Steps)),
		pausedAt: map[int]time.Duration{}, retried: map[int]bool{}}
	pr.countOthers()
	tail := min(max(p.Tail, 0), len(p.Steps))
	r.runSteps(info, pr, 0, len(p.Steps)-tail)
	if p.Reversed {
		r.deliverReversed(len(r.rec.Intents)-len(p.Steps), p.Steps)
	}
	if tail > 0 {
		return pr
	}
	return nil
}

// runSteps runs the steps from, to of a probe in order: a restart first
// where a step asks for one, a pause, a run of fillers together, a group
// of steps joined by With together, any other step alone.
func (r *runner) runSteps(info record.TargetInfo, pr *probeRun, from, to int) {
	p := pr.p
	for i := from; i < to; {
		if r.s.ctx.Err() != nil || r.fatal != nil {
			return
		}
		s := p.Steps[i]
		if s.Restart && r.canCrash() {
			r.restarts++
			if err := r.target().(Crasher).Restart(r.s.ctx); err != nil {
				r.fatal = fmt.Errorf("restarting the target before %s: %w", pr.label(s), err)
				return
			}
		}
		if s.Pause > 0 {
			pr.add(nil, -1)
			start := time.Now()
			ok := r.waitUntil(start.Add(s.Pause))
			pr.paused += time.Since(start)
			if !ok {
				return
			}
			i++
			continue
		}
		if j := r.fillerRun(p.Steps, i, to); j > i+1 {
			r.runFillers(info, pr, i, j)
			i = j
			continue
		}
		end := i + 1
		for end < to && p.Steps[end].With {
			end++
		}
		if end == i+1 {
			in, at, again := r.stepIntent(info, pr, i)
			if again {
				pr.add(&r.rec.Intents[at], at)
				r.retryOf(pr, &r.rec.Intents[at], s)
			} else if p.Reversed {
				r.rec.Intents = append(r.rec.Intents, in) // attempted later, together
				pr.add(&r.rec.Intents[len(r.rec.Intents)-1], len(r.rec.Intents)-1)
			} else {
				r.perform(&in, s)
				r.rec.Intents = append(r.rec.Intents, in)
				pr.add(&r.rec.Intents[len(r.rec.Intents)-1], len(r.rec.Intents)-1)
				if pr.isOther(i) {
					r.sentOthers(pr, 1)
				}
			}
		} else {
			r.runGroup(info, pr, i, end)
			others := 0
			for k := i; k < end; k++ {
				if pr.isOther(k) {
					others++
				}
			}
			r.sentOthers(pr, others)
		}
		i = end
	}
}

// stepIntent makes the intent of step i (its marker, key and inputs drawn
// in that order), or, for a step that retries an earlier intent (Again),
// returns that intent's index in the record and again set.
func (r *runner) stepIntent(info record.TargetInfo, pr *probeRun, i int) (in record.Intent, at int, again bool) {
	s := pr.p.Steps[i]
	if s.Again && s.KeyFrom >= 0 && s.KeyFrom < len(pr.at) && pr.at[s.KeyFrom] >= 0 {
		// By index: the pointers in made may point at an older copy of
		// the slice.
		return record.Intent{}, pr.at[s.KeyFrom], true
	}
	op, _ := info.Operation(s.Op)
	in = record.Intent{
		ID:         pr.first + i,
		Operation:  s.Op,
		Mutating:   op.Mutating,
		Role:       s.Role,
		Probe:      pr.label(s),
		PlannedFor: pr.serves,
		Marker:     r.newMarker(),
		Caller:     s.Caller,
	}
	switch {
	case s.NoKey:
	case s.MalformedKey:
		k := r.newKey()
		in.Key = k + "-" + strings.Repeat("x", max(checks.MalformedKeyLength-len(k)-1, 1))
	case s.KeyFrom >= 0:
		in.Key = pr.made[s.KeyFrom].Key
		in.Related = pr.made[s.KeyFrom].ID
	default:
		in.Key = r.newKey()
	}
	if s.InputsFrom >= 0 {
		in.Inputs = copyMap(pr.made[s.InputsFrom].Inputs)
		in.Related = pr.made[s.InputsFrom].ID
		if s.Change {
			r.changeInput(op, in.Inputs)
		}
	} else {
		in.Inputs = r.genInputs(op)
	}
	return in, -1, false
}

// retryOf makes step s's attempts at in, an intent an earlier step made.
// A step that waits (WaitSince) retries only an intent that was
// acknowledged, once that long has passed since; the first retry of a
// late intent records the pauses since it was made as its wait.
func (r *runner) retryOf(pr *probeRun, in *record.Intent, s checks.Step) {
	if r.retryStart(pr, in, s) {
		r.perform(in, s)
	}
}

// retryStart does what comes before step s retries in (see retryOf) and
// says whether the retry is to be made.
func (r *runner) retryStart(pr *probeRun, in *record.Intent, s checks.Step) bool {
	at := pr.at[s.KeyFrom]
	if s.WaitSince > 0 {
		ok := in.FirstOK()
		if ok == nil || !r.waitSince(ok.End, s.WaitSince) {
			return false
		}
		in.Waited = max(in.Waited, s.WaitSince)
	} else if in.Role == record.RoleLate && !pr.retried[at] {
		in.Waited = max(in.Waited, pr.paused-pr.pausedAt[at])
	}
	pr.retried[at] = true
	return true
}

// perform makes a step's attempts at in: a burst, a forged delivery, or
// Repeat attempts (the first under the step's fault), then retries until
// an attempt is ok when the step asks. Whether the client gave up on the
// intent is what its last step says: one that gives up marks an
// unacknowledged intent GaveUp, one that does not clears it.
func (r *runner) perform(in *record.Intent, s checks.Step) {
	r.attemptAll(in, s)
	r.settle(in)
	in.GaveUp = s.GiveUp && !in.Acknowledged()
}

// runGroup runs the steps from, to, joined by With, at once: their
// intents are made in step order, then each step is performed on its own
// goroutine, all released together, each retrying as it would alone; the
// intents join the record, in step order, once all are done. Each works
// on a copy of the runner's per-attempt state (the silence count, a fatal
// error), joined back after. A group with a fault that kills the target,
// restarts its database or otherwise acts on every call in flight
// (disrupts), or two steps retrying one intent, stops the run (r.fatal):
// neither can run at once.
func (r *runner) runGroup(info record.TargetInfo, pr *probeRun, from, to int) {
	type member struct {
		in *record.Intent
		at int // index in the record of a retried intent; -1 for a new one
		// skip: a retry that is not to be made (see retryStart).
		skip bool
	}
	ms := make([]member, 0, to-from)
	for i := from; i < to; i++ {
		s := pr.p.Steps[i]
		if disrupts(r.target(), s.Fault) {
			r.fatal = fmt.Errorf("%s: %s %s, so it cannot run at the same time as another step", pr.label(s), s.Fault.Name(), disruption(s.Fault))
			return
		}
		in, at, again := r.stepIntent(info, pr, i)
		if again {
			for _, m := range ms {
				if m.at == at {
					r.fatal = fmt.Errorf("%s retries an intent another step of its group retries at the same time", pr.label(s))
					return
				}
			}
			in := &r.rec.Intents[at]
			ms = append(ms, member{in: in, at: at, skip: !r.retryStart(pr, in, s)})
		} else {
			ms = append(ms, member{in: &in, at: -1})
		}
	}
	if r.serial() {
		// Attributed by delta: the steps run one after the other, in
		// order (the probes that need them at once do not apply, and
		// trials do not overlap their steps).
		for k, m := range ms {
			if !m.skip && r.fatal == nil {
				r.perform(m.in, pr.p.Steps[from+k])
			}
		}
		for _, m := range ms {
			at := m.at
			if at < 0 {
				r.rec.Intents = append(r.rec.Intents, *m.in)
				at = len(r.rec.Intents) - 1
			}
			pr.add(&r.rec.Intents[at], at)
		}
		return
	}
	// A group of single attempts at fresh intents is observed once all
	// are done: an effect one of them made and another's write undid
	// (a store rewritten whole) is not there to count.
	later := true
	for i := from; i < to; i++ {
		if s := pr.p.Steps[i]; !isSingle(s) {
			later = false
		}
	}
	release := make(chan struct{})
	subs := make([]*runner, len(ms))
	var wg sync.WaitGroup
	for k := range ms {
		sub := *r
		sub.later = later
		sub.rng = nil // attempts draw nothing: the intents are made
		usual := r.usualTime(ms[k].in)
		sub.usualBefore = &usual
		subs[k] = &sub
		s := pr.p.Steps[from+k]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			if !ms[k].skip {
				subs[k].perform(ms[k].in, s)
			}
		}()
	}
	close(release)
	wg.Wait()
	for _, sub := range subs {
		if r.fatal == nil {
			r.fatal = sub.fatal
		}
		if sub.answered {
			r.answered = true
		}
		r.silent, r.silentFor = max(r.silent, sub.silent), max(r.silentFor, sub.silentFor)
		r.refused = max(r.refused, sub.refused)
	}
	if later {
		for _, m := range ms {
			if len(m.in.Attempts) > 0 && r.observe(m.in.Marker) {
				m.in.Attempts[len(m.in.Attempts)-1].LedgerAfter = r.ledger.LastSeq()
			}
		}
	}
	for _, m := range ms {
		at := m.at
		if at < 0 {
			r.rec.Intents = append(r.rec.Intents, *m.in)
			at = len(r.rec.Intents) - 1
		}
		pr.add(&r.rec.Intents[at], at)
	}
}

// disruption says what a fault that acts on the whole target does to it
// (disrupts).
func disruption(f faults.Fault) string {
	if _, ok := f.(faults.Refuser); ok {
		return "restarts the target's database"
	}
	if _, ok := f.(faults.CrashFault); ok {
		return "kills the target"
	}
	return "acts on every call in flight on the target"
}

// isSingle says whether s makes one attempt at a fresh intent, with no
// fault and no retry.
func isSingle(s checks.Step) bool {
	return s.KeyFrom < 0 && s.Fault == nil && s.Repeat <= 1 && !s.UntilOK && s.Burst <= 1 && !s.BadSignature && !s.Again && s.WaitSince == 0
}

// fillerWorkers bounds the filler intents attempted at once.
const fillerWorkers = 8

// isFiller says whether s makes a plain filler intent: a fresh key, one
// attempt, nothing else.
func isFiller(s checks.Step) bool {
	return s.Role == record.RoleFiller && s.KeyFrom < 0 && s.InputsFrom < 0 && !s.NoKey && !s.DryRun && s.Fault == nil &&
		s.Repeat <= 1 && !s.UntilOK && s.Burst <= 1 && !s.BadSignature && !s.Again && s.WaitSince == 0 &&
		s.Pause == 0 && !s.With && !s.GiveUp
}

// fillerRun returns the end of the run of filler steps from i (before
// to), when the target takes concurrent calls (a Burster): they are then
// attempted together (runFillers); i itself otherwise. A restart is done
// before the run, so only its first step may ask for one.
func (r *runner) fillerRun(steps []checks.Step, i, to int) int {
	if _, ok := r.target().(Burster); !ok || !isFiller(steps[i]) || r.serial() {
		return i // one at a time, as any step, when attributing by delta
	}
	j := i + 1
	for j < to && isFiller(steps[j]) && !steps[j].Restart {
		j++
	}
	return j
}

// runFillers makes the intents of the filler steps from, to (their keys,
// markers and inputs drawn in order, as one at a time would) and attempts
// them fillerWorkers at a time: they only have to reach the target before
// whatever comes next, and a slow target (a process per call) would
// otherwise spend most of a run on them.
func (r *runner) runFillers(info record.TargetInfo, pr *probeRun, from, to int) {
	base := len(r.rec.Intents)
	for i := from; i < to; i++ {
		s := pr.p.Steps[i]
		op, _ := info.Operation(s.Op)
		in := record.Intent{ID: pr.first + i, Operation: s.Op, Mutating: op.Mutating, Role: s.Role, Probe: pr.label(s), PlannedFor: pr.serves, Marker: r.newMarker()}
		in.Key = r.newKey()
		in.Inputs = r.genInputs(op)
		r.rec.Intents = append(r.rec.Intents, in)
	}
	ins := r.rec.Intents[base:]
	work := make(chan int) // the index in ins
	var wg sync.WaitGroup
	// The progress line counts them, with the probe's other keys sent
	// before this run (a late retry sends its others in several runs): a
	// run of eighty calls of a slow tool takes a while. The count is said
	// under mu, so that a smaller one never follows a larger one.
	var mu sync.Mutex
	sent := 0
	label := probeLabel(pr.p)
	say := func() { r.probing(fillersLabel(label, pr.othersSent+sent, pr.others)) }
	say()
	workers := fillerWorkers
	if c, ok := r.target().(Concurrent); ok && c.Concurrency() > 0 {
		workers = c.Concurrency()
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				in := &ins[k]
				id := fmt.Sprintf("%s-%d-1", r.runID[:8], in.ID)
				a := record.Attempt{N: 1, ID: id, LedgerBefore: r.ledger.LastSeq(), Start: time.Now(), Incarnation: r.restarts + 1}
				r.attempted()
				a.Reply = r.target().Call(r.s.ctx, record.Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs})
				a.End, a.LedgerAfter = time.Now(), r.ledger.LastSeq()
				in.Attempts = append(in.Attempts, a)
				if pr.isOther(from + k) {
					mu.Lock()
					sent++
					say()
					mu.Unlock()
				}
			}
		}()
	}
	for k := range ins {
		if r.s.ctx.Err() != nil {
			break
		}
		work <- k
	}
	close(work)
	wg.Wait()
	pr.othersSent += sent
	for k := range ins {
		if len(ins[k].Attempts) > 0 && r.observe(ins[k].Marker) {
			ins[k].Attempts[0].LedgerAfter = r.ledger.LastSeq()
		}
	}
	for k := range ins {
		pr.add(&r.rec.Intents[base+k], base+k)
	}
}

// fillersLabel is what the progress line says of a probe that sends
// fillers while, and once, it sends its other keys (probeRun.others): how
// many of them it has sent so far, in all its runs of fillers and alone,
// out of all it sends: "late retry on charge: 12 of 80 other keys sent".
func fillersLabel(probe string, sent, total int) string {
	return fmt.Sprintf("%s: %d of %d other keys sent", probe, sent, total)
}

// idleWait is the shortest wait during which the probes give up their
// place among the targets that work at once (Config.Idle).
const idleWait = 200 * time.Millisecond

// waitUntil waits on a timer until t, and reports false if the run ended
// first. A long wait of the probes gives up the target's place meanwhile
// (Session.mayIdle): the target does nothing else then.
func (r *runner) waitUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return r.s.ctx.Err() == nil
	}
	if d >= idleWait && r.s.mayIdle() {
		r.s.cfg.Idle.Leave()
		defer r.s.cfg.Idle.Return(r.s.ctx)
	}
	r.waiting(t)
	defer r.waiting(time.Time{})
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.s.ctx.Done():
		return false
	}
}

// waitSince waits until d has passed since t as the target sees it: on
// the instance's clock, moved on at once, when the instance reads the
// time there (Clock), else on the wall clock. In a bubble of
// testing/synctest the wall clock is the bubble's, which moves on at once
// as it is waited on: both clocks see the time pass. It reports false if
// the run ended first.
func (r *runner) waitSince(t time.Time, d time.Duration) bool {
	if c := r.inst.Clock; c.Read() && !bubble.In() {
		if c.passSince(t, d) {
			r.noteClockMoved(d)
		}
		return r.s.ctx.Err() == nil
	}
	return r.waitUntil(t.Add(d))
}

// deliverReversed sends the first attempts of the intents from index first
// on newest first, in one go, then retries each until done.
func (r *runner) deliverReversed(first int, steps []checks.Step) {
	ro, ok := r.target().(Reorderer)
	if !ok {
		return
	}
	ins := r.rec.Intents[first:]
	calls := make([]record.Call, len(ins))
	for i := range ins {
		calls[i] = record.Call{ID: fmt.Sprintf("%s-%d-1", r.runID[:8], ins[i].ID), Operation: ins[i].Operation,
			Key: ins[i].Key, Marker: ins[i].Marker, Inputs: ins[i].Inputs}
	}
	before := r.ledger.LastSeq()
	start := time.Now()
	replies := ro.OutOfOrder(r.s.ctx, calls)
	for i := range ins {
		r.observe(ins[i].Marker)
	}
	end, after := time.Now(), r.ledger.LastSeq()
	for i := range ins {
		a := record.Attempt{N: 1, ID: calls[i].ID, Start: start, End: end, LedgerBefore: before, LedgerAfter: after, Incarnation: r.restarts + 1}
		if i < len(replies) {
			a.Reply = replies[i]
		} else {
			a.Reply = record.Reply{Outcome: record.Info, Error: "no reply from the reordered delivery"}
		}
		ins[i].Attempts = append(ins[i].Attempts, a)
	}
	for i := range ins {
		if steps[i].UntilOK {
			r.retryUntilOK(&ins[i], false)
		}
	}
}

func (r *runner) attemptAll(in *record.Intent, s checks.Step) {
	n := s.Repeat
	if n < 1 {
		n = 1
	}
	if _, ok := r.target().(Burster); ok && s.Burst > 1 {
		r.burst(in, s.Burst)
		n = 0
	}
	if s.BadSignature {
		r.forged(in)
		n = 0
	}
	for i := 0; i < n && r.s.ctx.Err() == nil && r.fatal == nil; i++ {
		var f faults.Fault
		var pt *record.EffectPoint
		if i == 0 {
			f, pt = s.Fault, s.Point
		}
		r.attemptAt(in, f, pt, s.DryRun)
	}
	if s.RetryFailures && !s.UntilOK {
		r.retryFailures(in, s.DryRun)
	}
	if !s.UntilOK {
		return
	}
	r.retryUntilOK(in, s.DryRun)
}

// retryFailures retries in like a client whose request failed: with the
// same key, while the last attempt got no reply or a 5xx, at most
// MaxAttempts attempts in all, backing off from the second retry on. Any
// other answer ends it, a refusal (Fail: a 4xx, a tool's or a command's
// error) or "in progress" (409, 425, 429) included: a step that retries
// only failures judges the target's first real answer.
func (r *runner) retryFailures(in *record.Intent, dryRun bool) {
	for failures := 1; failures < r.s.cfg.MaxAttempts && len(in.Attempts) > 0 &&
		len(in.Attempts) < maxAttemptsPerIntent && r.s.ctx.Err() == nil && r.fatal == nil; failures++ {
		last := in.Attempts[len(in.Attempts)-1]
		if last.Outcome != record.Info || busy(last.Status) || !failed(last.Reply) {
			return
		}
		if failures > 1 && !r.waitUntil(time.Now().Add(min(r.s.cfg.Backoff<<min(failures-2, 5), 250*time.Millisecond))) {
			return
		}
		r.attempt(in, nil, dryRun)
	}
}

// failed says whether an attempt got no answer a caller could act on: no
// reply at all, or a server error.
func failed(rep record.Reply) bool {
	return rep.Status == 0 || rep.Status >= 500
}

// retryUntilOK retries like a careful client: with the same key, while the
// reply says it may, at most MaxAttempts times for failures (backing off
// from the second retry on), and waiting out "in progress" answers (409,
// 425, 429) until stuckDeadline: for StuckWait, and for longer after an
// attempt whose fault held the target's own work.
func (r *runner) retryUntilOK(in *record.Intent, dryRun bool) {
	if len(in.Attempts) == 0 {
		r.attempt(in, nil, dryRun)
	}
	deadline := stuckDeadline(time.Now(), r.s.cfg.StuckWait, in, r.s.cfg.Faults)
	failures, waits := 0, 0
	for r.s.ctx.Err() == nil && r.fatal == nil && len(in.Attempts) < maxAttemptsPerIntent {
		last := in.Attempts[len(in.Attempts)-1]
		if last.Outcome == record.OK || !retryable(last.Reply) {
			return
		}
		var wait time.Duration
		if busy(last.Status) {
			if time.Now().After(deadline) {
				return
			}
			wait = min(r.s.cfg.Backoff<<min(waits, 5), 250*time.Millisecond)
			waits++
		} else {
			failures++
			if failures >= r.s.cfg.MaxAttempts {
				return
			}
			// The retry right after a failure goes at once (it may
			// meet the first call still in flight, which is worth
			// seeing); later ones back off, as a careful client's do:
			// a target that is still recovering from the failure (its
			// own downstream call not yet given up) is not called
			// "never succeeded" for retries a few milliseconds apart.
			if failures > 1 {
				wait = min(r.s.cfg.Backoff<<min(failures-2, 5), 250*time.Millisecond)
			}
		}
		if wait > 0 && !r.waitUntil(time.Now().Add(wait)) {
			return
		}
		r.attempt(in, nil, dryRun)
	}
}

// stuckDeadline is when retries of in that begin at now stop waiting out
// "in progress" answers: stuckWait after now, or, when one of in's
// attempts met a fault that holds the target's own work past the
// client's leaving (a faults.Holder among fs, such as a stalled database
// statement), stuckWait after that hold has surely ended, whichever is
// later. The hold begins when the fault acts, which is when the client
// leaves, so it ends at the latest Holds after the attempt's end. A
// correct target answers "in progress" until that attempt ends, and the
// attempt cannot end before the fault lets it go: without the hold, a
// stall as long as the stuck wait would call such a target stuck, or
// not, by a few milliseconds.
func stuckDeadline(now time.Time, stuckWait time.Duration, in *record.Intent, fs []faults.Fault) time.Time {
	deadline := now.Add(stuckWait)
	for _, a := range in.Attempts {
		if a.Fault == "" || a.NotFired {
			continue
		}
		for _, f := range fs {
			if h, ok := f.(faults.Holder); ok && f.Name() == a.Fault {
				if end := a.End.Add(h.Holds() + stuckWait); end.After(deadline) {
					deadline = end
				}
			}
		}
	}
	return deadline
}

// maxAttemptsPerIntent is a hard bound on one intent's attempts.
const maxAttemptsPerIntent = 200

func busy(status int) bool { return status == 409 || status == 425 || status == 429 }

// retryable says whether a client that follows the usual conventions would
// retry with the same key (record.Reply.Retryable).
func retryable(rep record.Reply) bool { return rep.Retryable() }

func sortedInputNames(op record.Operation) []string {
	names := make([]string, 0, len(op.Inputs))
	for n := range op.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
