package harness

import (
	"fmt"
	"sort"

	"github.com/idemcheck/idemcheck/record"
)

// CheckBaseline says why base cannot be a baseline for a run made as meta
// describes, or nil: it must be a whole run, not one shard of it, and come
// from the same configuration (by its SHA-256), and so from the same
// command.
func CheckBaseline(base *record.Result, meta record.Meta) error {
	if base.Meta.Shard != "" {
		return fmt.Errorf("shard %s of a run, which judged only part of it: merge its shards first (idemcheck report --out DIR with every shard's result.json) and pass DIR/result.json", base.Meta.Shard)
	}
	if base.Meta.ConfigDigest != meta.ConfigDigest {
		what := func(m record.Meta) string {
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
func Compare(base, cur *record.Result) error {
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

func diff(b, t *TargetResult) *record.TargetDiff {
	d := &record.TargetDiff{BaselineScore: b.Score.Level, New: []record.FindingKey{}, Fixed: []record.FindingKey{}, Still: []record.FindingKey{}}
	switch {
	case b.Score.Partial || t.Score.Partial:
		d.ScoreChange = record.ScoreUnknown
	case t.Score.Level < b.Score.Level:
		d.ScoreChange = record.ScoreLower
	case t.Score.Level > b.Score.Level:
		d.ScoreChange = record.ScoreHigher
	default:
		d.ScoreChange = record.ScoreSame
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
	for _, l := range [][]record.FindingKey{d.New, d.Fixed, d.Still} {
		sort.SliceStable(l, func(i, j int) bool { return l[i].Severity.Rank() > l[j].Severity.Rank() })
	}
	return d
}

type keySet struct {
	byID  map[string]record.FindingKey
	order []string
}

// findingKeys lists the findings' keys once each, keeping the worst severity.
func findingKeys(fs []record.Finding) keySet {
	s := keySet{byID: map[string]record.FindingKey{}}
	for _, f := range fs {
		k := f.Key()
		prev, ok := s.byID[k.ID()]
		switch {
		case !ok:
			s.order = append(s.order, k.ID())
			s.byID[k.ID()] = k
		case k.Severity.Rank() > prev.Severity.Rank():
			s.byID[k.ID()] = k
		}
	}
	return s
}
