package checks

import (
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// Step is one intent a probe makes, and how to attempt it.
type Step struct {
	// Role says why the intent is made; checks judge intents by role.
	Role record.Role
	// Op is the operation's name.
	Op string
	// KeyFrom reuses the key of an earlier step of the probe (-1: fresh).
	KeyFrom int
	// InputsFrom reuses the inputs of an earlier step (-1: fresh).
	InputsFrom int
	// Change alters one input of the reused inputs.
	Change bool
	// NoKey sends no idempotency key.
	NoKey bool
	// MalformedKey sends a key no target should take: a fresh key made
	// MalformedKeyLength characters long.
	MalformedKey bool
	// DryRun asks for the operation's dry run.
	DryRun bool
	// Fault is injected into the first attempt.
	Fault faults.Fault
	// Point is the downstream call of the intent Fault is armed at, for
	// a fault that acts at one (nil: the first, whichever it is).
	Point *record.EffectPoint
	// Repeat is how many attempts are sent whatever their outcome.
	Repeat int
	// UntilOK retries after the first attempt until an attempt is ok.
	UntilOK bool
	// RetryFailures retries, after the step's attempts, while the last
	// got no answer a caller could act on (no reply, a 5xx), at most
	// MaxAttempts attempts in all, as a client retries a failure; it
	// stops at any other answer, "in progress" included. A check that
	// judges the target's answer (a refusal) judges it by an answer, not
	// by a failure that came between, such as a database connection lost
	// to an earlier fault.
	RetryFailures bool
	// Burst sends that many copies at once as the first attempts.
	Burst int
	// BadSignature sends the first attempt with a wrong signature.
	BadSignature bool
	// Again makes no new intent: the step attempts the intent of step
	// KeyFrom once more (its key, inputs and marker), with Fault if any,
	// Repeat times, then until done if UntilOK.
	Again bool
	// WaitSince waits, before the step, until this long has passed since
	// the intent of step KeyFrom was acknowledged: a timer, cut short
	// when the run ends. An Again step that waits retries only an
	// acknowledged intent; one that does not retries it however it went.
	WaitSince time.Duration
	// Caller is which of the target's callers sends the intent (0 for
	// the first); Capabilities.Callers says how many there are.
	Caller int
	// GiveUp makes the client stop after the step's attempts: an intent
	// not acknowledged by then is marked GaveUp, and no check expects it
	// to complete.
	GiveUp bool
	// Restart restarts the target before the step (when the harness can).
	Restart bool
	// Pause makes the step no intent: the run waits this long (a timer,
	// cut short when the run ends), time that passes between an intent
	// and its retry.
	Pause time.Duration
	// With starts the step at the same time as the step before it: the
	// steps of a group joined by With are released together, each on its
	// own, retries included, and the next step starts once all are done.
	// A step of a group refers (KeyFrom, InputsFrom) only to steps before
	// the group; the interpreter refuses a group two of whose steps retry
	// one intent, or one of whose steps takes a fault that kills the
	// target.
	With bool
	// Label names the step in the intent it makes (Intent.Probe), instead
	// of the probe's name: "trial step 3".
	Label string
}

// Fresh returns a step that makes one attempt with a fresh key and fresh
// inputs.
func Fresh(role record.Role, op string) Step {
	return Step{Role: role, Op: op, KeyFrom: -1, InputsFrom: -1, Repeat: 1}
}

// Probe is a short script of intents that gives some checks something to
// judge. Checks judge every intent of the record by its role, so probes and
// generated trials feed the same checks.
type Probe struct {
	// Name says what the probe does; with its operations it keys the
	// probe's random stream, so it must not change between versions
	// lightly.
	Name  string
	Steps []Step
	// Reversed delivers the steps' first attempts newest first, together.
	Reversed bool
	// Spread places the probe among the others instead of with its
	// check's: probes that look for a race the target may only lose once
	// it is warm (connection pools open, caches filled) are spread across
	// the run.
	Spread bool
	// Tail is how many of the last steps run after every other probe of
	// the run: a probe that waits (Step.WaitSince) lets the others' time
	// count towards its wait.
	Tail int
}

// sequentialProbes sends the same key twice to a mutating operation: the
// probe that retry.sequential, replay.consistent, effect.field and
// exactly-once all judge.
func sequentialProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating {
		return nil
	}
	s := Fresh(record.RolePlain, pc.Op.Name)
	s.Repeat = 2
	return []Probe{{Name: "sequential retry", Steps: []Step{s}}}
}

// faultProbes injects each of pc.Faults into a first attempt at a mutating
// operation, then retries with the same key until an attempt is ok.
func faultProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating {
		return nil
	}
	var ps []Probe
	for _, f := range pc.Faults {
		s := Fresh(record.RolePlain, pc.Op.Name)
		s.Fault = f
		s.UntilOK = true
		name := "retry after " + f.Name()
		ps = append(ps, Probe{Name: name, Steps: []Step{s}})
		if racy(f) {
			for k := 2; k <= racyTries; k++ {
				ps = append(ps, Probe{Name: fmt.Sprintf("%s (try %d of %d)", name, k, racyTries), Steps: []Step{s}})
			}
		}
	}
	return ps
}

// racyTries is how many times a probe under a racy fault is tried.
const racyTries = 3

// racy says whether what f shows depends on a race with the target: the
// client that leaves while the target works (faults.DisconnectFault) may
// leave before or after the target notices, so one try may show a flaw
// the next misses. Such a probe is tried racyTries times, and its
// findings say in how many of the tries they happened.
func racy(f faults.Fault) bool {
	_, ok := f.(faults.DisconnectFault)
	return ok
}
