package harness

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// Step is one intent a probe makes, and how to attempt it.
type Step struct {
	// Role says why the intent is made; checks judge intents by role.
	Role Role
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
	// DryRun asks for the operation's dry run.
	DryRun bool
	// Fault is injected into the first attempt.
	Fault faults.Fault
	// Repeat is how many attempts are sent whatever their outcome.
	Repeat int
	// UntilOK retries after the first attempt until an attempt is ok.
	UntilOK bool
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
func Fresh(role Role, op string) Step {
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

// planned is a probe in the plan, with the checks it serves.
type planned struct {
	Probe
	serves []string
}

// planProbes asks every enabled check for its probes against each
// operation (mutating operations first), in the order of checks; a probe
// that several checks declare alike runs once. The checks that own fault
// classes are asked together, at the place of the first of them, once per
// fault in the order the faults were given, so the retries after each fault
// run in that order whichever check judges them.
func planProbes(checks []Invariant, info TargetInfo, enabled map[string]bool, fs []faults.Fault, supports func(faults.Fault) bool, burst, bursts int) []planned {
	var late LateOptions
	late.fill()
	return planProbesWith(checks, info, enabled, fs, supports, burst, bursts, late)
}

// planProbesWith is planProbes with retry.late's settings.
func planProbesWith(checks []Invariant, info TargetInfo, enabled map[string]bool, fs []faults.Fault, supports func(faults.Fault) bool, burst, bursts int, late LateOptions) []planned {
	caps := info.Caps()
	if !caps.Burst {
		burst = 0
	}
	var ops []Operation
	for _, op := range info.Operations {
		if op.Mutating {
			ops = append(ops, op)
		}
	}
	for _, op := range info.Operations {
		if !op.Mutating {
			ops = append(ops, op)
		}
	}
	owners := map[faults.Class]Invariant{}
	byID := map[string]Invariant{}
	for _, c := range checks {
		byID[c.ID] = c
		for _, fc := range c.Faults {
			if _, ok := owners[fc]; !ok {
				owners[fc] = c
			}
		}
	}
	var ps []planned
	at := map[string]int{}
	add := func(c Invariant, pc ProbeContext) {
		if !enabled[c.ID] || c.Probes == nil {
			return
		}
		for _, p := range c.Probes(pc) {
			k := probeKey(p)
			if i, ok := at[k]; ok {
				ps[i].serves = append(ps[i].serves, c.ID)
				continue
			}
			at[k] = len(ps)
			ps = append(ps, planned{Probe: p, serves: []string{c.ID}})
		}
	}
	for _, op := range ops {
		pc := ProbeContext{Op: op, Caps: caps, Burst: burst, Bursts: max(bursts, 1), Ops: info.Operations, Late: late}
		faultsPlanned := false
		for _, c := range checks {
			if len(c.Faults) == 0 {
				add(c, pc)
				continue
			}
			if faultsPlanned {
				continue
			}
			faultsPlanned = true
			for _, f := range fs {
				owner, ok := owners[faults.ClassOf(f)]
				if !ok { // a class no check lists: see faultOwner
					owner, ok = byID[CheckRetryAfterFault]
				}
				if ok && supports(f) {
					fpc := pc
					fpc.Faults = []faults.Fault{f}
					add(owner, fpc)
				}
			}
		}
	}
	return spread(ps)
}

// spread moves the probes marked Spread to evenly spaced places among the
// others, keeping the order of each group: the k-th of m goes after
// (k+1)/(m+1) of the rest.
func spread(ps []planned) []planned {
	var rest, moved []planned
	for _, p := range ps {
		if p.Spread {
			moved = append(moved, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(moved) == 0 || len(rest) == 0 {
		return ps
	}
	out := make([]planned, 0, len(ps))
	next := 0
	for k, p := range moved {
		at := (k + 1) * len(rest) / (len(moved) + 1)
		out = append(out, rest[next:at]...)
		next = at
		out = append(out, p)
	}
	return append(out, rest[next:]...)
}

// probeKey identifies a probe: its name and the operations of its steps.
func probeKey(p Probe) string {
	k := p.Name
	for _, s := range p.Steps {
		k += "\x00" + s.Op
	}
	return k
}

func sortedInputNames(op Operation) []string {
	names := make([]string, 0, len(op.Inputs))
	for n := range op.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sequentialProbes sends the same key twice to a mutating operation: the
// probe that retry.sequential, replay.consistent, effect.field and
// exactly-once all judge.
func sequentialProbes(pc ProbeContext) []Probe {
	if !pc.Op.Mutating {
		return nil
	}
	s := Fresh(RolePlain, pc.Op.Name)
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
		s := Fresh(RolePlain, pc.Op.Name)
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

// tryFamily returns the probe a repeated try belongs to: "retry after
// client-disconnect" for "retry after client-disconnect (try 2 of 3)";
// ok is false for a probe that is no repeated try.
func tryFamily(name string) (string, bool) {
	i := strings.LastIndex(name, " (try ")
	if i < 0 || !strings.HasSuffix(name, ")") {
		return name, false
	}
	return name[:i], true
}

// mergeTries folds the findings of one check that the tries of one racy
// probe made (same operation, fault and severity) into one, which says in
// how many of the tries it happened and keeps up to three of them as
// evidence.
func mergeTries(rec *Record, fs []Finding) []Finding {
	families := map[string]bool{}
	for _, in := range rec.Intents {
		if fam, ok := tryFamily(in.Probe); ok {
			families[fam] = true
		}
	}
	if len(families) == 0 {
		return fs
	}
	tries := map[string]int{}
	for _, in := range rec.Intents {
		if fam, _ := tryFamily(in.Probe); families[fam] {
			tries[fam+"\x00"+in.Operation]++
		}
	}
	var out []Finding
	at, seen := map[string]int{}, map[string]int{}
	for _, f := range fs {
		fam := ""
		for _, in := range f.Evidence.Intents {
			if x, _ := tryFamily(in.Probe); families[x] {
				fam = x
			}
		}
		if fam == "" {
			out = append(out, f)
			continue
		}
		k := strings.Join([]string{fam, f.Operation, f.Check, f.Fault, string(f.Severity)}, "\x00")
		if i, ok := at[k]; ok {
			seen[k]++
			if len(out[i].Evidence.Intents) < 3 {
				out[i].Evidence.Intents = append(out[i].Evidence.Intents, f.Evidence.Intents...)
				out[i].Evidence.Effects = append(out[i].Evidence.Effects, f.Evidence.Effects...)
			}
			continue
		}
		at[k], seen[k] = len(out), 1
		out = append(out, f)
	}
	for k, i := range at {
		parts := strings.SplitN(k, "\x00", 3)
		out[i].Message += fmt.Sprintf(" (in %d of %d tries)", seen[k], tries[parts[0]+"\x00"+parts[1]])
	}
	return out
}
