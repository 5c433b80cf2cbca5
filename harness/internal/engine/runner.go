package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// runner makes the attempts of one run of probes or of one trial against
// one instance of the target, and records them.
type runner struct {
	// s is the session the run is part of: its context, configuration
	// and pace.
	s      *Session
	inst   *Instance
	ledger *fakes.Ledger
	// runID names the run's attempts (Call.ID), seed its random choices
	// and nonce makes its keys and markers its own.
	runID string
	seed  uint64
	nonce uint64
	rng   *rand.Rand
	rec   *record.Record
	// fatal stops the run: the target could not be restarted.
	fatal error

	// later: the attempts' effects are observed once every step of their
	// group is done (see runGroup), not after each attempt.
	later bool
	// usualBefore, in a runner of a group's step, is the usual time of its
	// intent's operation as it stood when the group started (see
	// usualTime): the group's other steps write their intents' attempts
	// meanwhile, so it reads only its own.
	usualBefore *time.Duration

	// ff stops a probe run whose operation fails its first attempts alike.
	ff failFast
	// pp tells the progress of a probe run; nil in a trial.
	pp *probeProgress
	// restarts counts the restarts of the target in this run: attempts
	// record incarnation restarts+1.
	restarts int

	// deps follows the attempts in flight for the dependencies' proxies.
	deps *depFlight
	// pointsKnown are the operations whose effect points a clean run
	// showed (see effectPoints).
	pointsKnown map[string]bool
	// fakeCalled are the operations a fake has been seen take a call of
	// with an intent's marker (see actedFor).
	fakeCalled map[string]bool

	// Silence: unfaulted attempts without a reply, until one has one.
	answered  bool
	silent    int
	silentFor time.Duration
	// refused counts the unfaulted attempts in a row whose connection the
	// target refused, once it had answered (see noteRefused).
	refused int
}

// target is the instance's target.
func (r *runner) target() Target { return r.inst.Target }

// newKey makes the next idempotency key. It draws one number from the
// seeded stream, whatever the format, so every later choice is the same
// for every format and nonce.
func (r *runner) newKey() string { return r.s.spec.KeyFormat.Make(r.rng.Uint64(), r.nonce) }

// newMarker makes the next intent marker, drawing one number as newKey
// does.
func (r *runner) newMarker() string { return keys.Marker(r.rng.Uint64(), r.nonce) }

// attempt makes one attempt at in, under f (nil for none), armed by the
// fault's armer if it has one, and records it; a target the fault killed
// is restarted after it.
func (r *runner) attempt(in *record.Intent, f faults.Fault, dryRun bool) {
	r.attemptAt(in, f, nil, dryRun)
}

// attemptAt is attempt with f armed at the effect point pt of the intent
// (nil: at its first downstream call, whichever it is).
func (r *runner) attemptAt(in *record.Intent, f faults.Fault, pt *record.EffectPoint, dryRun bool) {
	r.beginFirst(in)
	n := len(in.Attempts) + 1
	id := fmt.Sprintf("%s-%d-%d", r.runID[:8], in.ID, n)
	a := record.Attempt{N: n, ID: id, DryRun: dryRun, Incarnation: r.restarts + 1}
	call := record.Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs, DryRun: dryRun, Fault: f, Caller: in.Caller}
	if f != nil {
		a.Fault = f.Name()
		a.FaultClass = string(faults.ClassOf(f))
		if pt != nil && atPoint(f) {
			a.Point = pt
		}
	}
	at := &armed{ctx: r.s.ctx, run: r.s.ctx, call: &call, fakes: r.inst.Fakes, ledger: r.ledger, pace: r.s.pace, point: a.Point}
	at.kill = func() {
		if at.crashed.CompareAndSwap(false, true) {
			_ = r.target().(Crasher).Kill()
		}
	}
	at.deps = r.inst.Deps
	at.depsInFlight = r.inst.DepsInFlight
	at.settleLater = func(w func(context.Context)) { r.deps.later(in.Marker, w) }
	at.usual = func() time.Duration { return r.usualTime(in) }
	r.deps.start(r.inst.DepsInFlight, in.Marker)
	defer r.deps.end(r.inst.DepsInFlight)
	var undo func()
	if ar := armerOf(f); ar != nil {
		undo = ar.arm(at)
		call.Acted = r.actedFor(in, f, at)
		defer func() {
			if undo != nil { // a panic on the way
				undo()
			}
		}()
	}
	a.LedgerBefore = r.ledger.LastSeq()
	a.Start = time.Now()
	r.attempted()
	what := in.Operation + " (" + in.Probe
	if a.Fault != "" {
		what += ", under " + a.Fault
	}
	waiting := r.sayWhileWaiting(a.Start, what+")")
	a.Reply = r.target().Call(at.ctx, call)
	waiting.Stop()
	if at.forwarded.Load() {
		a.Reply.Forwarded = true
	}
	a.End = time.Now()
	a.LedgerAfter = r.ledger.LastSeq()
	if undo != nil {
		undo()
		undo = nil
		// Read once undone: nothing can act on the fault any more.
		a.NotFired = at.fired != nil && !at.fired()
		if a.NotFired && at.unfiredWhy != "" {
			r.deps.noteUnfired(in.ID, n, at.unfiredWhy)
		}
	}
	if at.crashed.Load() {
		a.Crashed = true
		r.restarts++
		if err := r.target().(Crasher).Restart(r.s.ctx); err != nil && r.s.ctx.Err() == nil {
			r.fatal = fmt.Errorf("restarting the target after %s: %w", f.Name(), err)
		}
	}
	if !r.later && r.observe(in.Marker) {
		a.LedgerAfter = r.ledger.LastSeq() // after a crash, read once restarted
	}
	in.Attempts = append(in.Attempts, a)
	r.noteDown(in.Operation, a.Fault, faults.Class(a.FaultClass))
	r.noteRefused(a)
	r.noteSilence(a)
	r.noteFailure(in, a)
}

// refusedLimit is how many unfaulted attempts in a row, after the target
// has answered, may find its connection refused before the run says it
// stopped: a target idemcheck does not start that went away would
// otherwise have every later probe judged on calls that never reached it.
const refusedLimit = 3

// refusedConn says whether a reached nothing because the target refused
// the connection (nothing listens at its address any more).
func refusedConn(a record.Attempt) bool {
	return !a.Forwarded && a.Fault == "" && strings.Contains(a.Error, "connection refused")
}

// noteRefused stops the run (r.fatal) once refusedLimit unfaulted
// attempts in a row, after the target had answered, found its connection
// refused: what served it is gone.
func (r *runner) noteRefused(a record.Attempt) {
	if a.Fault != "" || r.fatal != nil || r.s.ctx.Err() != nil {
		return
	}
	if !refusedConn(a) || !r.answered {
		r.refused = 0
		return
	}
	r.refused++
	if r.refused >= refusedLimit {
		r.fatal = &downError{fmt.Sprintf("the target stopped accepting connections after it had answered: %d attempts in a row without a fault were refused (last: %s); a target idemcheck does not start must keep running for the whole run", r.refused, a.Error)}
	}
}

// downError is the fatal error of a run whose target's process exited by
// itself (see Watched): in the probes the target cannot be tested, in a
// generated trial it is what the trial found (see trialFindings).
type downError struct{ msg string }

func (e *downError) Error() string { return e.msg }

// noteDown stops the run (r.fatal) when the target says what serves it
// exited by itself, during or before an attempt at op under fault (""
// for none) of class: every later call would fail, and be judged as the
// target's answer.
func (r *runner) noteDown(op, fault string, class faults.Class) {
	w, ok := r.target().(Watched)
	if !ok || r.fatal != nil || r.s.ctx.Err() != nil {
		return
	}
	why := w.Down()
	if why == "" {
		return
	}
	msg := fmt.Sprintf("the target stopped by itself, no fault having killed it (by the end of an attempt at %s): %s", op, why)
	switch {
	case class == faults.ClassDownstream || class == faults.ClassDependency:
		msg = fmt.Sprintf("the target stopped by itself by the end of an attempt at %s under %s, which fails a call the target makes and kills nothing: a failure of what it calls must be answered with an error, not end the server: %s", op, fault, why)
	case fault != "":
		msg = fmt.Sprintf("the target stopped by itself by the end of an attempt at %s under %s, a fault that kills nothing: %s", op, fault, why)
	}
	r.fatal = &downError{msg}
}

// waitNotice is how long an attempt waits for its answer before the
// progress is told, and told again.
const waitNotice = 5 * time.Second

// sayWhileWaiting tells the progress, every waitNotice until stopped,
// that an attempt at what, started at start, still waits for its answer.
func (r *runner) sayWhileWaiting(start time.Time, what string) *waitNotices {
	if r.s.progress == nil {
		return nil
	}
	w := &waitNotices{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t = time.AfterFunc(waitNotice, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.stopped {
			return
		}
		r.s.say("%s: waiting for an answer to %s, %d s", r.s.spec.Name, what, int(time.Since(start).Round(time.Second)/time.Second))
		w.t.Reset(waitNotice)
	})
	return w
}

// waitNotices are the notices of one attempt's wait (sayWhileWaiting).
type waitNotices struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

// Stop ends the notices: none is told after it returns.
func (w *waitNotices) Stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.t.Stop()
}

// silentLimit is how many attempts in a row, from the first, may end with
// no reply at all before the target is declared untestable: a target that
// accepts connections and never answers would otherwise cost every probe
// its full timeout (minutes), for nothing. hungLimit is how many
// unfaulted attempts in a row may time out once it has answered, before
// it is declared unresponsive all the same: a target that answered once
// and then hangs for good.
const (
	silentLimit = 3
	hungLimit   = 5
)

// silence says whether an attempt got no answer: it timed out (whatever
// a command printed before it was killed), or ended in an error with
// nothing received. Any status, any bytes of a reply or of a program's
// output, a signal that ended a program by itself, or no error at all is
// an answer.
func silence(a record.Attempt) bool {
	if a.TimedOut {
		return true
	}
	return a.Status == 0 && a.Error != "" && a.Body == "" && a.Stderr == "" && a.ExitSignal == ""
}

// noteSilence counts the unfaulted attempts in a row that got no answer
// (see silence): silentLimit of them before any answer, or hungLimit that
// timed out after one, stop the run of the target (r.fatal), saying how
// long it waited. Each one counted is told to the progress, so that a
// long wait shows. A reply whose status came but whose body did not end
// in time is an answer before the first one (the target is not silent:
// its first attempts failing alike say how, see failFast), and a timeout
// after it.
func (r *runner) noteSilence(a record.Attempt) {
	if a.Fault != "" || r.fatal != nil || r.s.ctx.Err() != nil {
		return
	}
	began := strings.HasPrefix(a.Error, record.ReplyUnfinished)
	if !silence(a) || (r.answered && !a.TimedOut) || (!r.answered && began) {
		r.answered = true
		r.silent, r.silentFor = 0, 0
		return
	}
	r.silent++
	r.silentFor += a.End.Sub(a.Start)
	what := "attempts"
	if r.silent == 1 {
		what = "attempt"
	}
	r.s.say("%s: %d %s unanswered, %d s", r.s.spec.Name, r.silent, what, int(r.silentFor.Round(time.Second)/time.Second))
	// The setting to raise, where the adapter names it (a consumer's
	// broker.timeout: it answers by acknowledging, not by a reply).
	timeout, none := "its timeout", "got no reply"
	if tf, ok := r.target().(interface{ TimeoutField() string }); ok {
		timeout, none = tf.TimeoutField(), "went unanswered"
	}
	switch {
	case !r.answered && r.silent >= silentLimit:
		r.fatal = &hangError{fmt.Sprintf("the target never answered: %d attempts in a row %s, %s of waiting in all (last: %s); check that it is healthy, or raise %s if it is just slow",
			r.silent, none, r.silentFor.Round(time.Millisecond), a.Error, timeout)}
	case r.answered && r.silent >= hungLimit:
		r.fatal = &hangError{fmt.Sprintf("the target stopped answering: %d attempts in a row timed out after it had answered, %s of waiting in all (last: %s); check that it is healthy, or raise %s if it is just slow",
			r.silent, r.silentFor.Round(time.Millisecond), a.Error, timeout)}
	}
}

// forged sends the intent's call with a wrong signature, once.
func (r *runner) forged(in *record.Intent) {
	sg, ok := r.target().(Signer)
	if !ok {
		return
	}
	r.beginFirst(in)
	id := fmt.Sprintf("%s-%d-%d", r.runID[:8], in.ID, len(in.Attempts)+1)
	a := record.Attempt{N: len(in.Attempts) + 1, ID: id, Fault: "bad-signature", LedgerBefore: r.ledger.LastSeq(), Start: time.Now(), Incarnation: r.restarts + 1}
	a.Reply = sg.BadSignature(r.s.ctx, record.Call{ID: id, Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs})
	a.End = time.Now()
	r.observe(in.Marker)
	a.LedgerAfter = r.ledger.LastSeq()
	in.Attempts = append(in.Attempts, a)
}

// burst sends n copies of the intent's call at once.
func (r *runner) burst(in *record.Intent, n int) {
	b := r.target().(Burster)
	r.beginFirst(in) // a burst is one intent: its copies share a key
	base := len(in.Attempts)
	before := r.ledger.LastSeq()
	start := time.Now()
	call := record.Call{ID: fmt.Sprintf("%s-%d-burst", r.runID[:8], in.ID), Operation: in.Operation, Key: in.Key, Marker: in.Marker, Inputs: in.Inputs, Caller: in.Caller}
	replies := b.Burst(r.s.ctx, call, n)
	end := time.Now()
	r.observe(in.Marker)
	after := r.ledger.LastSeq()
	for i, rep := range replies {
		in.Attempts = append(in.Attempts, record.Attempt{
			N: base + i + 1, ID: fmt.Sprintf("%s-%d", call.ID, i+1), Burst: true, Incarnation: r.restarts + 1,
			Start: start, End: end, LedgerBefore: before, LedgerAfter: after, Reply: rep,
		})
		r.attempted()
	}
	r.noteDown(in.Operation, "", "")
	if len(replies) > 0 {
		r.noteRefused(in.Attempts[base])
	}
	r.noteBurst(in, in.Attempts[base:])
}

func (r *runner) genInputs(op record.Operation) map[string]string {
	out := map[string]string{}
	for _, name := range sortedInputNames(op) {
		out[name] = genValue(r.rng, op.Inputs[name])
	}
	return out
}

// changeInput alters the first input (by name) to another value.
func (r *runner) changeInput(op record.Operation, vals map[string]string) {
	names := sortedInputNames(op)
	if len(names) == 0 {
		return
	}
	name := names[0]
	old := vals[name]
	for i := 0; i < 64; i++ {
		if v := genValue(r.rng, op.Inputs[name]); v != old {
			vals[name] = v
			return
		}
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"

func genValue(rng *rand.Rand, in record.Input) string {
	switch in.Kind {
	case "int":
		if in.Max <= in.Min {
			return fmt.Sprint(in.Min)
		}
		return fmt.Sprint(in.Min + rng.IntN(in.Max-in.Min+1))
	case "choice":
		if len(in.Choices) == 0 {
			return ""
		}
		return in.Choices[rng.IntN(len(in.Choices))]
	default:
		n := in.Length
		if n <= 0 {
			n = 8
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return in.Prefix + string(b)
	}
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// probeStream derives a probe's random stream from its name and the
// operations it uses.
func probeStream(p checks.Probe) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.Name))
	for _, s := range p.Steps {
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(s.Op))
	}
	return h.Sum64()
}

// hangError is the fatal error of a run whose target stopped answering
// (see noteSilence). In the probes it makes the target untestable; in a
// generated trial it is what the trial found (see trialFindings).
type hangError struct{ msg string }

func (e *hangError) Error() string { return e.msg }

// actedFor is what tells the target whether f, armed by at for an
// attempt at in, has acted (record.Call.Acted), for a target whose answer
// may come before its effects to wait on: at.fired, when f acts at a
// downstream call a fake takes while the target works (not at an effect
// an observer reads once the attempt is over, nor at the exchange with
// the client), for an intent with no effect yet (one acted on before may
// be skipped as a duplicate, with no call), of an operation a fake has
// been seen take a call of with an intent's marker. Otherwise nil: a wait
// for it could only run out.
func (r *runner) actedFor(in *record.Intent, f faults.Fault, at *armed) func() bool {
	if at.fired == nil || !atPoint(f) || len(r.ledger.ByMarker(in.Marker)) > 0 {
		return nil
	}
	op := in.Operation
	if at.point != nil {
		if _, ok := r.inst.Fakes[at.point.Fake]; !ok {
			return nil
		}
	}
	if !r.fakeCalled[op] {
		markers := map[string]bool{}
		for i := range r.rec.Intents {
			if in := &r.rec.Intents[i]; in.Operation == op {
				markers[in.Marker] = true
			}
		}
		for _, e := range r.ledger.Effects() {
			if _, fake := r.inst.Fakes[e.Fake]; !fake {
				continue
			}
			for _, m := range e.Markers {
				if markers[m] {
					if r.fakeCalled == nil {
						r.fakeCalled = map[string]bool{}
					}
					r.fakeCalled[op] = true
				}
			}
		}
	}
	if !r.fakeCalled[op] {
		return nil
	}
	return at.fired
}
