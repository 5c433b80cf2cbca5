package scenarios_test

import (
	"strings"
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

// TestGeneratedGroupsOverlapSafely: with Overlap, trials start several
// intents at once, of different keys and of one key, and every such group
// is valid: no reference into the group, no intent retried twice at once,
// no fault that must run alone, no restart, wait or fill inside it.
// Without Overlap, no step is joined to another.
func TestGeneratedGroupsOverlapSafely(t *testing.T) {
	space := scenarios.Space{
		Ops:     []scenarios.Op{{Name: "charge", Mutating: true, DryRun: true, Inputs: true}, {Name: "balance"}},
		Faults:  []string{"reset", "crash-after-effect"},
		Alone:   []string{"crash-after-effect"},
		Restart: true,
		Burst:   4,
		Fill:    10,
		Overlap: true,
	}
	gen := scenarios.Gen(space)
	var groups, sameKey, keys int
	for i := 0; i < 3000; i++ {
		tr := gen.Example(i)
		if err := tr.Validate(); err != nil {
			t.Fatalf("generated trial %d is invalid: %v\n%s", i, err, tr)
		}
		for start := 0; start < len(tr.Steps); start = tr.GroupEnd(start) {
			end := tr.GroupEnd(start)
			if end-start < 2 {
				continue
			}
			groups++
			seen := map[int]bool{}
			fresh := 0
			for j := start; j < end; j++ {
				s := tr.Steps[j]
				if s.Fault == "crash-after-effect" {
					t.Fatalf("trial %d: step %d kills the target alongside other steps\n%s", i, j+1, tr)
				}
				switch s.Key {
				case scenarios.Again, scenarios.Changed:
					if seen[s.Of] {
						sameKey++
					}
					seen[s.Of] = true
				case scenarios.Fresh, scenarios.Twin:
					fresh++
				}
			}
			if fresh >= 2 {
				keys++
			}
		}
	}
	if groups < 300 || sameKey < 5 || keys < 100 {
		t.Fatalf("too few overlaps to show anything: %d groups, %d with one key twice, %d with two fresh keys", groups, sameKey, keys)
	}
	t.Logf("%d groups, %d with one key twice in flight, %d with two fresh keys", groups, sameKey, keys)

	space.Overlap = false
	gen = scenarios.Gen(space)
	for i := 0; i < 500; i++ {
		for j, s := range gen.Example(i).Steps {
			if s.With {
				t.Fatalf("trial %d step %d: joined without Overlap", i, j+1)
			}
		}
	}
}

// TestValidateRefusesUnsafeGroups: a hand-edited trial whose group refers
// into itself, retries one intent twice at once, or joins a wait, a fill
// or a restart is refused with the reason.
func TestValidateRefusesUnsafeGroups(t *testing.T) {
	charge := func(k scenarios.KeyPolicy, of int, with bool) scenarios.Step {
		return scenarios.Step{Op: "charge", Key: k, Of: of, With: with}
	}
	for name, steps := range map[string][]scenarios.Step{
		"first step":      {{Op: "charge", Key: scenarios.Fresh, With: true}},
		"into the group":  {charge(scenarios.Fresh, 0, false), charge(scenarios.Again, 0, true)},
		"one retry twice": {charge(scenarios.Fresh, 0, false), charge(scenarios.Fresh, 0, false), charge(scenarios.Again, 0, true), charge(scenarios.Again, 0, true)},
		// Step 2 retries step 1's intent: retrying step 2 retries it too.
		"one intent through two steps": {charge(scenarios.Fresh, 0, false), charge(scenarios.Again, 0, false), charge(scenarios.Again, 0, false), charge(scenarios.Again, 1, true)},
		"a wait":                       {charge(scenarios.Fresh, 0, false), {Wait: 1, With: true}},
		"after a fill":                 {{Op: "charge", Key: scenarios.Fresh, Fill: 3}, charge(scenarios.Fresh, 0, true)},
		"a restart":                    {charge(scenarios.Fresh, 0, false), {Op: "charge", Key: scenarios.Fresh, Restart: true, With: true}},
	} {
		err := scenarios.Trial{Steps: steps}.Validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	ok := scenarios.Trial{Steps: []scenarios.Step{
		charge(scenarios.Fresh, 0, false), charge(scenarios.Fresh, 0, false),
		charge(scenarios.Again, 0, true), charge(scenarios.Changed, 0, true), charge(scenarios.Fresh, 0, true),
	}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a retry, a changed payload of the same key and a fresh key at once: %v", err)
	}
	if got := ok.String(); !strings.Contains(got, "4. at the same time as step 3: charge with the key of step 1 and a changed payload") {
		t.Fatalf("the step list does not say which steps overlap:\n%s", got)
	}
}

// TestNoKeylessStepWhereEveryCallHasAKey: an operation whose every call
// carries a key (a queue consumer's event always has its id) is never
// sent without one; the operation beside it still is.
func TestNoKeylessStepWhereEveryCallHasAKey(t *testing.T) {
	gen := scenarios.Gen(scenarios.Space{
		Ops: []scenarios.Op{
			{Name: "charge.requested", Mutating: true, Inputs: true, KeyAlways: true},
			{Name: "refund", Mutating: true, Inputs: true},
		},
		Faults: []string{"downstream-503"},
	})
	keyless := map[string]int{}
	for i := 0; i < 2000; i++ {
		for _, s := range gen.Example(i).Steps {
			if s.Key == scenarios.None {
				keyless[s.Op]++
			}
		}
	}
	if keyless["charge.requested"] != 0 {
		t.Fatalf("%d keyless steps of an operation whose every call has a key", keyless["charge.requested"])
	}
	if keyless["refund"] < 50 {
		t.Fatalf("only %d keyless steps of the other operation: the generator no longer makes them", keyless["refund"])
	}
}

// TestGeneratedEventKeysAreNeverReusedWithAnotherPayload: an operation
// whose key is the event's own id (a webhook, a queue consumer) is never
// sent with that id and another payload, nor without an id; retries and
// twins are still generated. The same space with a key beside the
// payload generates both.
func TestGeneratedEventKeysAreNeverReusedWithAnotherPayload(t *testing.T) {
	count := func(op scenarios.Op) (changed, none, again int) {
		gen := scenarios.Gen(scenarios.Space{Ops: []scenarios.Op{op}, Faults: []string{"reset"}, Restart: true})
		for i := 0; i < 2000; i++ {
			for _, s := range gen.Example(i).Steps {
				switch s.Key {
				case scenarios.Changed:
					changed++
				case scenarios.None:
					none++
				case scenarios.Again:
					again++
				}
			}
		}
		return changed, none, again
	}
	changed, none, again := count(scenarios.Op{Name: "invoice.due", Mutating: true, Inputs: true, KeyAlways: true, EventKey: true})
	if changed != 0 || none != 0 || again < 100 {
		t.Fatalf("event ids: %d steps with a changed payload, %d without an id (want 0, 0), %d retries", changed, none, again)
	}
	changed, none, _ = count(scenarios.Op{Name: "charge", Mutating: true, Inputs: true})
	if changed < 100 || none < 100 {
		t.Fatalf("keys beside the payload: %d changed payloads, %d keyless steps: too few", changed, none)
	}
}
