package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// KeyPolicy says which idempotency key a step's intent uses.
type KeyPolicy string

// The key policies, simplest first.
const (
	// Fresh: a new key and new inputs.
	Fresh KeyPolicy = "fresh"
	// Again: the key and payload of step Of, later: a retry of that intent.
	Again KeyPolicy = "again"
	// Twin: a new key with the inputs of step Of.
	Twin KeyPolicy = "twin"
	// Changed: the key of step Of with a changed payload.
	Changed KeyPolicy = "changed"
	// None: no key at all.
	None KeyPolicy = "none"
)

// Step is one intent of a trial (or, for Again, more attempts at one).
type Step struct {
	// Op is the operation's name.
	Op  string    `json:"op"`
	Key KeyPolicy `json:"key"`
	// Of is the index (from 0) of the earlier step Again, Twin and Changed
	// refer to.
	Of int `json:"of,omitempty"`
	// Fault is injected into the first attempt ("" for none).
	Fault string `json:"fault,omitempty"`
	// GiveUp makes the client give up after the first attempt instead of
	// retrying until done.
	GiveUp bool `json:"give_up,omitempty"`
	// DryRun asks for a dry run.
	DryRun bool `json:"dry_run,omitempty"`
	// Burst, when above 1, sends that many copies at once.
	Burst int `json:"burst,omitempty"`
	// Restart restarts the target before the step.
	Restart bool `json:"restart,omitempty"`
	// Fill, when above 0, makes the step that many intents of Op with
	// fresh keys, one attempt each (several at once where the target
	// takes calls at once): other keys that come between an earlier
	// intent and its retry.
	Fill int `json:"fill,omitempty"`
	// Wait, when above 0, makes the step a pause of that long, and
	// nothing else: time that passes between an intent and its retry.
	Wait time.Duration `json:"wait,omitempty"`
	// With starts the step at the same time as the step before it: a run
	// of steps joined by With (a group) is released together, and every
	// step of it is in flight, retries included, until all are done. A
	// step of a group refers (Of) only to a step before the group, no two
	// steps of a group retry the same intent, and none restarts the
	// target, waits, fills or takes a fault that must run alone
	// (Space.Alone).
	With bool `json:"with,omitempty"`
}

// Trial is a generated scenario: a few steps run in order.
type Trial struct {
	Steps []Step `json:"steps"`
}

// String renders the trial as a numbered, readable step list.
func (t Trial) String() string { return t.Describe(Space{}) }

// Describe is String for a trial over sp: a step of an operation sp says
// is not mutating (a read, which no key concerns) is told without its
// key ("list-orders retrying until done", not "… with a fresh key …").
func (t Trial) Describe(sp Space) string {
	reads := map[string]bool{}
	for _, o := range sp.Ops {
		reads[o.Name] = !o.Mutating
	}
	var b strings.Builder
	for i, s := range t.Steps {
		d := s.describe(reads[s.Op])
		if s.With && i > 0 {
			fmt.Fprintf(&b, "%d. at the same time as step %d: %s\n", i+1, i, d)
			continue
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, d)
	}
	return b.String()
}

// GroupStart returns the index of the first step of the group step i
// belongs to: i itself unless step i is joined (With) to the steps before
// it.
func (t Trial) GroupStart(i int) int {
	for i > 0 && t.Steps[i].With {
		i--
	}
	return i
}

// GroupEnd returns the index after the last step of the group that starts
// at step i.
func (t Trial) GroupEnd(i int) int {
	j := i + 1
	for j < len(t.Steps) && t.Steps[j].With {
		j++
	}
	return j
}

// describe says what the step does; read says that its operation is not
// mutating, so that its key is not spoken of.
func (s Step) describe(read bool) string {
	var parts []string
	if s.Restart {
		parts = append(parts, "restart the target, then")
	}
	switch {
	case s.Wait > 0:
		return "wait " + s.Wait.String()
	case s.Fill > 0:
		return fmt.Sprintf("%s with %s", s.Op, plural(s.Fill, "other fresh key", "other fresh keys"))
	case s.DryRun:
		parts = append(parts, s.Op+" as a dry run with a fresh key")
	case s.Burst > 1:
		parts = append(parts, fmt.Sprintf("%s: a burst of %d copies with a fresh key", s.Op, s.Burst))
	case s.Key == Fresh && read:
		parts = append(parts, s.Op)
	case s.Key == Fresh:
		parts = append(parts, s.Op+" with a fresh key")
	case s.Key == Again:
		parts = append(parts, fmt.Sprintf("%s again with the key and payload of step %d", s.Op, s.Of+1))
	case s.Key == Twin:
		parts = append(parts, fmt.Sprintf("%s with a new key and the inputs of step %d", s.Op, s.Of+1))
	case s.Key == Changed:
		parts = append(parts, fmt.Sprintf("%s with the key of step %d and a changed payload", s.Op, s.Of+1))
	case s.Key == None:
		parts = append(parts, s.Op+" without a key")
	}
	if s.Fault != "" {
		parts = append(parts, "under "+s.Fault)
	}
	switch {
	case s.DryRun || s.Key == Changed:
		// Sent once: a dry run has nothing to complete, and a changed
		// payload is one the key's first use should refuse.
	case s.GiveUp:
		parts = append(parts, "and give up after one attempt")
	default:
		parts = append(parts, "retrying until done")
	}
	return strings.Join(parts, " ")
}

// Validate checks a trial as generated trials are: every reference points
// back at an earlier step of the same operation that made an intent (with
// a key, for a retry or a changed payload); no wait or fill is negative;
// every key policy is known; and every group (steps joined by With) can
// run at once: it joins no wait, fill or restart, refers only to steps
// before it, and retries no intent twice (followed back through Origin).
// A hand-edited trial file may break any of these.
func (t Trial) Validate() error {
	if len(t.Steps) == 0 {
		return fmt.Errorf("trial: no steps")
	}
	for i, s := range t.Steps {
		if s.Wait < 0 || s.Fill < 0 {
			return fmt.Errorf("trial step %d: a negative wait or fill", i+1)
		}
		if s.With {
			if err := t.validateWith(i); err != nil {
				return err
			}
		}
		if s.Wait > 0 {
			continue
		}
		if s.Op == "" {
			return fmt.Errorf("trial step %d: no operation", i+1)
		}
		switch s.Key {
		case Fresh, None:
		case Again, Twin, Changed:
			if s.Of < 0 || s.Of >= i {
				return fmt.Errorf("trial step %d: %s refers to step %d, which does not come before it", i+1, s.Key, s.Of+1)
			}
			if of := t.Steps[s.Of]; of.Wait > 0 || of.Fill > 0 {
				return fmt.Errorf("trial step %d: %s refers to step %d, which makes no intent of its own to refer to", i+1, s.Key, s.Of+1)
			}
			if t.Steps[s.Of].Op != s.Op {
				return fmt.Errorf("trial step %d: %s refers to step %d, an operation of another kind (%s)", i+1, s.Key, s.Of+1, t.Steps[s.Of].Op)
			}
			// "The key of step N" means nothing when step N had none.
			if s.Key != Twin && t.Steps[s.Of].Key == None {
				return fmt.Errorf("trial step %d: %s uses the key of step %d, which had no key", i+1, s.Key, s.Of+1)
			}
		default:
			return fmt.Errorf("trial step %d: unknown key policy %q", i+1, s.Key)
		}
	}
	return nil
}

// validateWith checks that step i, joined to the steps before it, can run
// alongside them.
func (t Trial) validateWith(i int) error {
	s := t.Steps[i]
	switch {
	case i == 0:
		return fmt.Errorf("trial step 1: with, but no step comes before it")
	case s.Wait > 0 || s.Fill > 0 || s.Restart:
		return fmt.Errorf("trial step %d: a wait, a fill or a restart cannot run at the same time as another step", i+1)
	case t.Steps[i-1].Wait > 0 || t.Steps[i-1].Fill > 0:
		return fmt.Errorf("trial step %d: joined to step %d, a wait or a fill, which runs alone", i+1, i)
	}
	start := t.GroupStart(i)
	if (s.Key == Again || s.Key == Twin || s.Key == Changed) && s.Of >= start {
		return fmt.Errorf("trial step %d: refers to step %d, which runs at the same time as it", i+1, s.Of+1)
	}
	if s.Key == Again {
		for j := start; j < i; j++ {
			if o := t.Steps[j]; o.Key == Again && t.Origin(o.Of) == t.Origin(s.Of) {
				return fmt.Errorf("trial step %d: retries the intent of step %d at the same time as step %d does", i+1, t.Origin(s.Of)+1, j+1)
			}
		}
	}
	return nil
}

// Origin returns the step that made the intent step i makes or retries:
// i itself, or, for a retry (Again), the step its chain of retries leads
// back to. Two retries of one intent have one origin.
func (t Trial) Origin(i int) int {
	for i >= 0 && i < len(t.Steps) && t.Steps[i].Key == Again && t.Steps[i].Of < i {
		i = t.Steps[i].Of
	}
	return i
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Saved is a failing trial as it is kept on disk, to be run again first
// next time and replayed on demand.
type Saved struct {
	Target string `json:"target"`
	Seed   uint64 `json:"seed"`
	Trial  Trial  `json:"trial"`
	// Checks are the checks it made fail.
	Checks []string `json:"checks"`
}

// Write writes saved trials as Load reads them back: indented JSON.
func Write(w io.Writer, saved []Saved) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(saved)
}

// Load reads saved trials from a file written by Write, and checks each
// (Validate), since such files are also edited by hand.
func Load(path string) ([]Saved, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Saved
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: not a file of saved trials: %w", path, err)
	}
	for i, s := range out {
		if err := s.Trial.Validate(); err != nil {
			return nil, fmt.Errorf("%s: trial %d: %w", path, i+1, err)
		}
	}
	return out, nil
}
