package scenarios

import (
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
}

// Gen returns a generator of trials over s. Every choice draws its
// simplest value first (no fault, a fresh key, retry until done), so rapid
// shrinks a failing trial towards the plainest one that still fails.
func Gen(s Space) *rapid.Generator[Trial] {
	maxSteps := s.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 6
	}
	return rapid.Custom(func(t *rapid.T) Trial {
		n := rapid.IntRange(1, maxSteps).Draw(t, "steps")
		var tr Trial
		for i := 0; i < n; i++ {
			tr.Steps = append(tr.Steps, drawStep(t, s, tr.Steps))
		}
		return tr
	})
}

func drawStep(t *rapid.T, s Space, before []Step) Step {
	if s.Wait > 0 && len(before) > 0 && rapid.IntRange(0, 9).Draw(t, "wait?") == 9 {
		return Step{Wait: time.Duration(rapid.IntRange(1, 10).Draw(t, "wait")) * s.Wait / 10}
	}
	op := rapid.SampledFrom(s.Ops).Draw(t, "op")
	st := Step{Op: op.Name, Key: Fresh}
	if s.Restart && len(before) > 0 {
		st.Restart = rapid.IntRange(0, 5).Draw(t, "restart?") == 5
	}
	if !op.Mutating {
		return st
	}
	// Earlier steps of the same operation that a key policy may refer to:
	// any of them for a twin (it takes only the inputs), only those that
	// had a key for a retry or a changed payload "with the key of step N".
	var same, keyed []int
	for i, b := range before {
		if b.Op == op.Name && !b.DryRun && b.Burst == 0 && b.Fill == 0 && b.Wait == 0 {
			same = append(same, i)
			if b.Key != None {
				keyed = append(keyed, i)
			}
		}
	}
	policies := []KeyPolicy{Fresh}
	if len(keyed) > 0 {
		policies = append(policies, Again)
	}
	if len(same) > 0 {
		policies = append(policies, Twin)
	}
	if len(keyed) > 0 && op.Inputs {
		policies = append(policies, Changed)
	}
	policies = append(policies, None)
	st.Key = rapid.SampledFrom(policies).Draw(t, "key")
	switch st.Key {
	case Twin:
		st.Of = rapid.SampledFrom(same).Draw(t, "of")
	case Again, Changed:
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
		faults := append([]string{""}, s.Faults...)
		st.Fault = rapid.SampledFrom(faults).Draw(t, "fault")
	}
	st.GiveUp = rapid.IntRange(0, 3).Draw(t, "give up?") == 3
	return st
}
