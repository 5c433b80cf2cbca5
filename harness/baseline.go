package harness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// CheckBaseline says why base cannot be a baseline for a run made as meta
// describes, or nil: it must be a whole run, not one shard of it. It may
// come from another version of the configuration: findings are matched by
// target, check, operation and fault, so an edit (a comment, a new
// operation, another fault) keeps the history of everything it did not
// rename; see Compare.
func CheckBaseline(base *record.Result, meta record.Meta) error {
	if base.Meta.Shard != "" {
		return fmt.Errorf("shard %s of a run, which judged only part of it: merge its shards first (idemcheck report --out DIR with every shard's result.json) and pass DIR/result.json", base.Meta.Shard)
	}
	return nil
}

// Compare compares cur with base, an earlier result (see CheckBaseline),
// and sets each target's TargetResult.Baseline: targets are matched by
// name, findings by check, operation and fault. A target base did not
// have, or could not test, gets none; the targets only one of them has
// (renamed, added or removed) are named in cur.Gate (NewTargets,
// GoneTargets), which ApplyGate keeps. Apply the gate after it (ApplyGate)
// to gate on what is new.
func Compare(base, cur *record.Result) error {
	if err := CheckBaseline(base, cur.Meta); err != nil {
		return err
	}
	old := map[string]*TargetResult{}
	for i := range base.Targets {
		old[base.Targets[i].Name] = &base.Targets[i]
	}
	g := &record.Gate{}
	now := map[string]bool{}
	for i := range cur.Targets {
		t := &cur.Targets[i]
		now[t.Name] = true
		t.Baseline = nil
		b, ok := old[t.Name]
		if !ok {
			g.NewTargets = append(g.NewTargets, t.Name)
			continue
		}
		if b.Error != "" || t.Error != "" {
			continue
		}
		t.Baseline = diff(b, t)
	}
	for _, b := range base.Targets {
		if !now[b.Name] {
			g.GoneTargets = append(g.GoneTargets, b.Name)
		}
	}
	cur.Gate = g
	return nil
}

// TargetHistory says which targets lost their history since the
// baseline, as one phrase; "" when none did.
func TargetHistory(g *record.Gate) string {
	if g == nil {
		return ""
	}
	var parts []string
	if n := len(g.NewTargets); n > 0 {
		parts = append(parts, fmt.Sprintf("%s not in the baseline (renamed or added: judged without one)", nameList("target", g.NewTargets)))
	}
	if n := len(g.GoneTargets); n > 0 {
		parts = append(parts, fmt.Sprintf("%s of the baseline not in this run (renamed or removed)", nameList("target", g.GoneTargets)))
	}
	return strings.Join(parts, "; ")
}

func nameList(noun string, xs []string) string {
	if len(xs) == 1 {
		return noun + " " + xs[0]
	}
	return noun + "s " + strings.Join(xs, ", ")
}

// operations are the names of t's operations: those of its record, or,
// without one, those its findings name.
func operations(t *TargetResult) map[string]bool {
	ops := map[string]bool{}
	if t.Record != nil {
		for _, op := range t.Record.Target.Operations {
			ops[op.Name] = true
		}
	}
	if len(ops) == 0 {
		for _, f := range t.Findings {
			if f.Operation != "" {
				ops[f.Operation] = true
			}
		}
	}
	return ops
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
	oldOps, newOps := operations(b), operations(t)
	gone := map[string]bool{}
	if len(oldOps) > 0 && len(newOps) > 0 {
		for op := range newOps {
			if !oldOps[op] {
				d.NewOperations = append(d.NewOperations, op)
			}
		}
		for op := range oldOps {
			if !newOps[op] {
				d.GoneOperations = append(d.GoneOperations, op)
				gone[op] = true
			}
		}
		sort.Strings(d.NewOperations)
		sort.Strings(d.GoneOperations)
	}
	was, now := findingKeys(b.Findings), findingKeys(t.Findings)
	matched := map[string]bool{} // the baseline's keys a finding of now matched
	for _, k := range now.order {
		if w, ok := was.match(now.byID[k]); ok {
			matched[w] = true
			d.Still = append(d.Still, now.byID[k])
		} else {
			d.New = append(d.New, now.byID[k])
		}
	}
	for _, k := range was.order {
		if !matched[k] && !gone[was.byID[k].Operation] {
			// A finding of an operation this run does not have is not
			// fixed: nothing here judged it.
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

// match finds k among the set's keys and returns its ID: the key with k's
// ID, else, for a finding whose fault was armed at a downstream call
// (k.Point), the key of a baseline that named no call (one made before
// findings named their point, or when the operation made only one call).
func (s keySet) match(k record.FindingKey) (string, bool) {
	if _, ok := s.byID[k.ID()]; ok {
		return k.ID(), true
	}
	if k.Point == "" {
		return "", false
	}
	k.Point = ""
	_, ok := s.byID[k.ID()]
	return k.ID(), ok
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
