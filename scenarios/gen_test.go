package scenarios_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/scenarios"
)

// TestGeneratedKeyReferencesHaveAKey: "again with the key of step N" and
// "the key of step N with a changed payload" are only ever generated when
// step N had a key; a keyless step reused that way would be judged as a
// key reused with another payload although no key was ever sent.
func TestGeneratedKeyReferencesHaveAKey(t *testing.T) {
	space := scenarios.Space{
		Ops: []scenarios.Op{
			{Name: "charge", Mutating: true, DryRun: true, Inputs: true},
			{Name: "refund", Mutating: true, Inputs: true},
			{Name: "balance"},
		},
		Faults:  []string{"reset", "downstream-503"},
		Restart: true,
		Burst:   5,
	}
	gen := scenarios.Gen(space)
	var refs, keyless int
	for i := 0; i < 3000; i++ {
		tr := gen.Example(i)
		if err := tr.Validate(); err != nil {
			t.Fatalf("generated trial %d is invalid: %v\n%s", i, err, tr)
		}
		for j, s := range tr.Steps {
			if s.Key == scenarios.None {
				keyless++
			}
			if s.Key != scenarios.Again && s.Key != scenarios.Changed {
				continue
			}
			refs++
			if tr.Steps[s.Of].Key == scenarios.None {
				t.Fatalf("trial %d step %d: %s refers to keyless step %d\n%s", i, j+1, s.Key, s.Of+1, tr)
			}
		}
	}
	if refs < 100 || keyless < 100 {
		t.Fatalf("too few cases to show anything: %d key references, %d keyless steps", refs, keyless)
	}
}

// TestValidateRefusesTheKeyOfAKeylessStep: a hand-edited or old saved
// trial that reuses the key of a keyless step is refused with the reason.
func TestValidateRefusesTheKeyOfAKeylessStep(t *testing.T) {
	for _, policy := range []scenarios.KeyPolicy{scenarios.Again, scenarios.Changed} {
		tr := scenarios.Trial{Steps: []scenarios.Step{
			{Op: "charge", Key: scenarios.None},
			{Op: "charge", Key: policy, Of: 0},
		}}
		err := tr.Validate()
		if err == nil {
			t.Fatalf("%s of a keyless step: accepted", policy)
		}
		t.Log(err)
	}
	twin := scenarios.Trial{Steps: []scenarios.Step{{Op: "charge", Key: scenarios.None}, {Op: "charge", Key: scenarios.Twin, Of: 0}}}
	if err := twin.Validate(); err != nil {
		t.Fatalf("a twin takes only the inputs of a keyless step: %v", err)
	}
}
