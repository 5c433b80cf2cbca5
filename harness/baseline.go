package harness

import (
	"fmt"
	"sort"
	"strings"
)

// ScoreChange says how a target's score moved since a baseline.
type ScoreChange string

// The score changes; ScoreUnknown when either score is partial.
const (
	ScoreSame    ScoreChange = "same"
	ScoreLower   ScoreChange = "lower"
	ScoreHigher  ScoreChange = "higher"
	ScoreUnknown ScoreChange = "unknown"
)

// FindingKey identifies a finding across runs: its check, operation and
// cause (the fault it was found under, or none). Messages are not part of
// it: they quote keys and ids that differ from run to run.
type FindingKey struct {
	Check     string   `json:"check"`
	Operation string   `json:"operation,omitempty"`
	Fault     string   `json:"fault,omitempty"`
	Severity  Severity `json:"severity"`
	// Message is the first such finding's message, for people.
	Message string `json:"message"`
}

// String is the key as "check operation [fault]".
func (k FindingKey) String() string {
	s := k.Check
	if k.Operation != "" {
		s += " " + k.Operation
	}
	if k.Fault != "" {
		s += " [" + k.Fault + "]"
	}
	return s
}

func (k FindingKey) id() string { return k.Check + "\x00" + k.Operation + "\x00" + k.Fault }

func findingKey(f Finding) FindingKey {
	return FindingKey{Check: f.Check, Operation: f.Operation, Fault: f.Fault, Severity: f.Severity, Message: f.Message}
}

// TargetDiff is how a target compares with the same target in a baseline:
// its findings new, fixed (in the baseline, gone now) and still present,
// each listed once per check, operation and cause, and its score.
type TargetDiff struct {
	BaselineScore int          `json:"baseline_score"`
	ScoreChange   ScoreChange  `json:"score_change"`
	New           []FindingKey `json:"new"`
	Fixed         []FindingKey `json:"fixed"`
	Still         []FindingKey `json:"still"`
}

// isNew reports whether f is one of the diff's new findings.
func (d *TargetDiff) isNew(f Finding) bool {
	id := findingKey(f).id()
	for _, k := range d.New {
		if k.id() == id {
			return true
		}
	}
	return false
}

// CheckBaseline says why base cannot be a baseline for a run made as meta
// describes, or nil: it must be a whole run, not one shard of it, and come
// from the same configuration (by its SHA-256), and so from the same
// command.
func CheckBaseline(base *Result, meta Meta) error {
	if base.Meta.Shard != "" {
		return fmt.Errorf("shard %s of a run, which judged only part of it: merge its shards first (idemcheck report --out DIR with every shard's result.json) and pass DIR/result.json", base.Meta.Shard)
	}
	if base.Meta.ConfigDigest != meta.ConfigDigest {
		what := func(m Meta) string {
			if m.ConfigDigest == "" {
				return "no configuration file (" + orWord(m.Command, "unknown command") + ")"
			}
			return fmt.Sprintf("%s (sha256 %.12s…)", orWord(m.Config, "a configuration"), m.ConfigDigest)
		}
		return fmt.Errorf("made from %s, but this run is from %s: a baseline must come from the same configuration", what(base.Meta), what(meta))
	}
	return nil
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Compare compares cur with base, an earlier result of the same
// configuration (see CheckBaseline), and sets each target's
// TargetResult.Baseline; a target base did not have, or could not test,
// gets none. Apply the gate after it (ApplyGate) to gate on what is new.
func Compare(base, cur *Result) error {
	if err := CheckBaseline(base, cur.Meta); err != nil {
		return err
	}
	old := map[string]*TargetResult{}
	for i := range base.Targets {
		old[base.Targets[i].Name] = &base.Targets[i]
	}
	for i := range cur.Targets {
		t := &cur.Targets[i]
		t.Baseline = nil
		b, ok := old[t.Name]
		if !ok || b.Error != "" || t.Error != "" {
			continue
		}
		t.Baseline = diff(b, t)
	}
	return nil
}

func diff(b, t *TargetResult) *TargetDiff {
	d := &TargetDiff{BaselineScore: b.Score.Level, New: []FindingKey{}, Fixed: []FindingKey{}, Still: []FindingKey{}}
	switch {
	case b.Score.Partial || t.Score.Partial:
		d.ScoreChange = ScoreUnknown
	case t.Score.Level < b.Score.Level:
		d.ScoreChange = ScoreLower
	case t.Score.Level > b.Score.Level:
		d.ScoreChange = ScoreHigher
	default:
		d.ScoreChange = ScoreSame
	}
	was, now := findingKeys(b.Findings), findingKeys(t.Findings)
	for _, k := range now.order {
		if _, ok := was.byID[k]; ok {
			d.Still = append(d.Still, now.byID[k])
		} else {
			d.New = append(d.New, now.byID[k])
		}
	}
	for _, k := range was.order {
		if _, ok := now.byID[k]; !ok {
			d.Fixed = append(d.Fixed, was.byID[k])
		}
	}
	for _, l := range [][]FindingKey{d.New, d.Fixed, d.Still} {
		sort.SliceStable(l, func(i, j int) bool { return severityRank[l[i].Severity] > severityRank[l[j].Severity] })
	}
	return d
}

type keySet struct {
	byID  map[string]FindingKey
	order []string
}

// findingKeys lists the findings' keys once each, keeping the worst severity.
func findingKeys(fs []Finding) keySet {
	s := keySet{byID: map[string]FindingKey{}}
	for _, f := range fs {
		k := findingKey(f)
		prev, ok := s.byID[k.id()]
		switch {
		case !ok:
			s.order = append(s.order, k.id())
			s.byID[k.id()] = k
		case severityRank[k.Severity] > severityRank[prev.Severity]:
			s.byID[k.id()] = k
		}
	}
	return s
}

// Summary says the diff in a few words, e.g. "2 new, 1 fixed, 3 still
// present; score 1 (same)".
func (d *TargetDiff) Summary() string {
	parts := []string{fmt.Sprintf("%d new", len(d.New)), fmt.Sprintf("%d fixed", len(d.Fixed)), fmt.Sprintf("%d still present", len(d.Still))}
	s := strings.Join(parts, ", ")
	switch d.ScoreChange {
	case ScoreUnknown:
		return s + "; score not comparable (partial)"
	case ScoreSame:
		return s + fmt.Sprintf("; score as in the baseline (%d)", d.BaselineScore)
	}
	return s + fmt.Sprintf("; score %s than the baseline's %d", d.ScoreChange, d.BaselineScore)
}
