package harness

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Merge puts the shards of one run (idemcheck run --shard i/n, with the
// same seed and configuration) back together and scores the whole: each
// target's intents are joined in their planned order, and each shard's
// ledger is renumbered after the ones before it, moving that shard's attempt
// windows with it, so every check judges the merged record as it would the
// unsharded one. Merging a single result re-scores it.
func Merge(results ...*Result) (*Result, error) {
	if len(results) == 0 {
		return nil, errors.New("merge: no results")
	}
	out := &Result{Schema: ResultSchema, Seed: results[0].Seed, Meta: results[0].Meta, Started: results[0].Started}
	out.Meta.Shard = ""
	byName := map[string]*TargetResult{}
	var order []string
	for _, res := range results {
		if res.Schema != ResultSchema {
			return nil, fmt.Errorf("merge: schema %q, expected %q", res.Schema, ResultSchema)
		}
		if res.Seed != out.Seed {
			return nil, fmt.Errorf("merge: seeds differ (%d and %d): shards of one run share its seed", out.Seed, res.Seed)
		}
		if res.Started.Before(out.Started) {
			out.Started = res.Started
		}
		out.Duration = max(out.Duration, res.Duration)
		for _, t := range res.Targets {
			m, ok := byName[t.Name]
			if !ok {
				m = &TargetResult{Name: t.Name, Kind: t.Kind}
				byName[t.Name] = m
				order = append(order, t.Name)
			}
			if err := mergeTarget(m, t); err != nil {
				return nil, fmt.Errorf("merge: target %s: %w", t.Name, err)
			}
		}
	}
	for _, name := range order {
		t := byName[name]
		if t.Record != nil {
			t.Record.Shard = ""
			sort.SliceStable(t.Record.Intents, func(i, j int) bool { return t.Record.Intents[i].ID < t.Record.Intents[j].ID })
			if t.Error == "" {
				Score(t)
			}
		}
		out.Targets = append(out.Targets, *t)
	}
	return out, nil
}

func mergeTarget(m *TargetResult, t TargetResult) error {
	if m.Kind != t.Kind {
		return fmt.Errorf("kinds differ (%s and %s)", m.Kind, t.Kind)
	}
	if t.Error != "" {
		if m.Error != "" {
			m.Error += "; "
		}
		m.Error += t.Error
	}
	m.Duration = max(m.Duration, t.Duration)
	if t.Record == nil {
		return nil
	}
	if m.Record == nil {
		rec := *t.Record
		rec.Intents = append([]Intent(nil), t.Record.Intents...)
		rec.Ledger = append(rec.Ledger[:0:0], t.Record.Ledger...)
		m.Record = &rec
		return nil
	}
	if strings.Join(m.Record.Checks, ",") != strings.Join(t.Record.Checks, ",") {
		return errors.New("the shards ran different checks: were they made with the same configuration?")
	}
	offset := int64(len(m.Record.Ledger))
	seen := map[int]bool{}
	for _, in := range m.Record.Intents {
		seen[in.ID] = true
	}
	for _, in := range t.Record.Intents {
		if seen[in.ID] {
			return fmt.Errorf("intent %d is in two shards: were they made with the same --shard n?", in.ID)
		}
		in.Attempts = append([]Attempt(nil), in.Attempts...)
		for i := range in.Attempts {
			in.Attempts[i].LedgerBefore += offset
			in.Attempts[i].LedgerAfter += offset
		}
		m.Record.Intents = append(m.Record.Intents, in)
	}
	for _, e := range t.Record.Ledger {
		e.Seq += offset
		m.Record.Ledger = append(m.Record.Ledger, e)
	}
	m.Record.Unsupported = union(m.Record.Unsupported, t.Record.Unsupported)
	return nil
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
