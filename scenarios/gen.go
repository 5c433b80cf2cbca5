package scenarios

import (
	"slices"
	"time"

	"pgregory.net/rapid"
)

// Op is what the generator needs to know of an operation.
type Op struct {
	Name     string
	Mutating bool
	// DryRun is true when the operation has a dry run.
	DryRun bool
	// Inputs is true when the operation has inputs that can be changed.
	Inputs bool
	// KeyAlways is true when every call carries a key, whatever the
	// client does (a queue consumer's event always has its id): no step
	// goes without one.
	KeyAlways bool
	// EventKey is true when the key is the call's own (a webhook's or a
	// message's event id): no step sends it with another payload, which
	// the target's sender never does.
	EventKey bool
}

// Space is what trials may be made of.
type Space struct {
	Ops []Op
	// Faults are the names of the faults the target can take.
	Faults []string
	// MaxSteps bounds a trial's length (default 6).
	MaxSteps int
	// Restart allows restarts between steps; Burst > 1 allows bursts of
	// that many copies.
	Restart bool
	Burst   int
	// Fill, when above 0, allows steps of up to Fill intents with fresh
	// keys (other keys between an intent and its retry); Wait, when above
	// 0, allows pauses of up to Wait, in tenths of it.
	Fill int
	Wait time.Duration
	// Overlap allows steps that start at the same time as the step before
	// them (Step.With): several intents in flight at once. Alone names the
	// faults a step must take by itself: those that act on the whole
	// target (kill it, restart its database, or fail every call in flight
	// on it).
	Overlap bool
	Alone   []string
}

// Gen returns a generator of trials over s. Every choice draws its
// simplest value first (no fault, a fresh key, retry until done), so that
// a generator used under rapid's own test runner (rapid.Check) shrinks a
// failing trial towards the plainest one that still fails; the harness
// draws trials with Example and shrinks them itself.
func Gen(s Space) *rapid.Generator[Trial] {
	maxSteps := s.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 6
	}
	return rapid.Custom(func(t *rapid.T) Trial {
		n := rapid.IntRange(1, maxSteps).Draw(t, "steps")
		var tr Trial
		for i := 0; i < n; i++ {
			if s.Overlap && canJoin(s, tr) && rapid.IntRange(0, 3).Draw(t, "with?") == 3 {
				tr.Steps = append(tr.Steps, drawJoined(t, s, tr))
				continue
			}
			tr.Steps = append(tr.Steps, drawStep(t, s, tr.Steps, len(tr.Steps), nil))
		}
		return tr
	})
}

// canJoin says whether a step may start at the same time as the last of
// tr: it and its group are intents, none under a fault that must run
// alone.
func canJoin(s Space, tr Trial) bool {
	if len(tr.Steps) == 0 {
		return false
	}
	last := len(tr.Steps) - 1
	for j := tr.GroupStart(last); j <= last; j++ {
		st := tr.Steps[j]
		if st.Wait > 0 || st.Fill > 0 || slices.Contains(s.Alone, st.Fault) {
			return false
		}
	}
	return true
}

// drawJoined draws a step that starts at the same time as the last of tr:
// it refers only to steps before their group, retries no intent another
// step of the group retries, and takes no fault that must run alone.
func drawJoined(t *rapid.T, s Space, tr Trial) Step {
	start := tr.GroupStart(len(tr.Steps) - 1)
	taken := map[int]bool{} // the origins of the intents the group retries
	for _, st := range tr.Steps[start:] {
		if st.Key == Again {
			taken[tr.Origin(st.Of)] = true
		}
	}
	inner := s
	inner.Wait, inner.Fill, inner.Restart = 0, 0, false
	inner.Faults = slices.DeleteFunc(slices.Clone(s.Faults), func(f string) bool { return slices.Contains(s.Alone, f) })
	// Mostly the operation of the step it joins: two intents of one
	// operation in flight together are where shared state goes wrong.
	if lead := tr.Steps[len(tr.Steps)-1]; rapid.IntRange(0, 3).Draw(t, "same op?") > 0 {
		for _, op := range s.Ops {
			if op.Name == lead.Op {
				inner.Ops = []Op{op}
			}
		}
	}
	st := drawStep(t, inner, tr.Steps, start, taken)
	st.With = true
	return st
}

// drawStep draws the step after before. Key policies refer only to the
// steps before index refs, and a retry (Again) never to a step whose
// intent's origin is in taken.
func drawStep(t *rapid.T, s Space, before []Step, refs int, taken map[int]bool) Step {
	if s.Wait > 0 && len(before) > 0 && rapid.IntRange(0, 9).Draw(t, "wait?") == 9 {
		return Step{Wait: time.Duration(rapid.IntRange(1, 10).Draw(t, "wait")) * s.Wait / 10}
	}
	op := rapid.SampledFrom(s.Ops).Draw(t, "op")
	st := Step{Op: op.Name, Key: Fresh}
	if s.Restart && len(before) > 0 {
		// A restart costs tens of milliseconds against a process: one
		// step in sixteen, so that most trials keep the target's pace.
		st.Restart = rapid.IntRange(0, 15).Draw(t, "restart?") == 15
	}
	if !op.Mutating {
		return st
	}
	// Earlier steps of the same operation that a key policy may refer to:
	// any of them for a twin (it takes only the inputs), only those that
	// had a key for a retry or a changed payload "with the key of step N".
	var same, keyed []int
	for i, b := range before[:refs] {
		if b.Op == op.Name && !b.DryRun && b.Burst == 0 && b.Fill == 0 && b.Wait == 0 {
			same = append(same, i)
			if b.Key != None {
				keyed = append(keyed, i)
			}
		}
	}
	// A step's intent may itself be a retry: two steps of one group must
	// not retry one intent, whichever step they name.
	retryable := slices.DeleteFunc(slices.Clone(keyed), func(i int) bool { return taken[Trial{Steps: before}.Origin(i)] })
	policies := []KeyPolicy{Fresh}
	if len(retryable) > 0 {
		policies = append(policies, Again)
	}
	if len(same) > 0 {
		policies = append(policies, Twin)
	}
	if len(keyed) > 0 && op.Inputs && !op.EventKey {
		policies = append(policies, Changed)
	}
	if !op.KeyAlways {
		policies = append(policies, None)
	}
	st.Key = rapid.SampledFrom(policies).Draw(t, "key")
	switch st.Key {
	case Twin:
		st.Of = rapid.SampledFrom(same).Draw(t, "of")
	case Again:
		st.Of = rapid.SampledFrom(retryable).Draw(t, "of")
	case Changed:
		st.Of = rapid.SampledFrom(keyed).Draw(t, "of")
	}
	if st.Key == Fresh {
		switch kind := rapid.IntRange(0, 9).Draw(t, "kind"); {
		case kind == 8 && op.DryRun:
			st.DryRun = true
			return st
		case kind == 9 && s.Burst > 1:
			st.Burst = s.Burst
			return st
		case kind == 7 && s.Fill > 0 && len(before) > 0:
			st.Fill = rapid.IntRange(1, s.Fill).Draw(t, "fill")
			return st
		}
	}
	if len(s.Faults) > 0 && st.Key != Changed {
		st.Fault = drawFault(t, s)
	}
	st.GiveUp = rapid.IntRange(0, 3).Draw(t, "give up?") == 3
	return st
}

// drawFault draws a step's fault, or none. A fault that acts on the whole
// target (Space.Alone) costs the trials beside it their turn, and most
// cost a restart: it is drawn a quarter as often as one of the others,
// which leave the target to the other calls.
func drawFault(t *rapid.T, s Space) string {
	var cheap, costly []string
	for _, f := range s.Faults {
		if slices.Contains(s.Alone, f) {
			costly = append(costly, f)
		} else {
			cheap = append(cheap, f)
		}
	}
	// Four slots for no fault and for each cheap fault, one for each
	// costly one; the first slot (no fault) is the simplest.
	choices := append([]string{""}, cheap...)
	k := rapid.IntRange(0, 4*len(choices)+len(costly)-1).Draw(t, "fault")
	if k < 4*len(choices) {
		return choices[k/4]
	}
	return costly[k-4*len(choices)]
}
