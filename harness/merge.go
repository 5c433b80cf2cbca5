package harness

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

// Merge puts the shards of one run (idemcheck run --shard i/n, with the
// same seed and configuration) back together and scores the whole: each
// target's intents are joined in their planned order, and each shard's
// ledger is renumbered after the ones before it, moving that shard's attempt
// windows with it, so every check judges the merged record as it would the
// unsharded one. Merging a single result re-scores it.
//
// The results must be one run: the same seed and configuration and, when
// they are shards (Meta.Shard), every shard exactly once; otherwise the
// merged report would judge part of a run, and Merge says which result is
// wrong (by its Source, when it was read from a file). The merged result
// has no gate: apply one (ApplyGate) to judge it.
func Merge(results ...*record.Result) (*record.Result, error) {
	if len(results) == 0 {
		return nil, errors.New("merge: no results")
	}
	if err := oneRun(results); err != nil {
		return nil, err
	}
	out := &record.Result{Schema: record.ResultSchema, Seed: results[0].Seed, Nonce: results[0].Nonce, Meta: results[0].Meta, Started: results[0].Started}
	out.Meta.Shard = ""
	byName := map[string]*TargetResult{}
	var order []string
	for _, res := range results {
		if res.Schema != record.ResultSchema {
			return nil, fmt.Errorf("merge: schema %q, expected %q", res.Schema, record.ResultSchema)
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
				checks.Score(t)
			}
		}
		out.Targets = append(out.Targets, *t)
	}
	checks.MarkPartial(out) // a run restricted by --only stays partial when re-scored
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
	// What generated trials showed is kept (Score counts its findings): the
	// first shard's that has a counterexample, else the first one's.
	if t.Scenario != nil && (m.Scenario == nil || m.Scenario.Counterexample == nil && t.Scenario.Counterexample != nil) {
		m.Scenario = t.Scenario
	}
	if t.Record == nil {
		return nil
	}
	if m.Record == nil {
		rec := *t.Record
		rec.Intents = append([]record.Intent(nil), t.Record.Intents...)
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
		in.Attempts = append([]record.Attempt(nil), in.Attempts...)
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
	m.Record.Dependencies = union(m.Record.Dependencies, t.Record.Dependencies)
	for _, u := range t.Record.Unexamined {
		if !slices.Contains(m.Record.Unexamined, u) {
			m.Record.Unexamined = append(m.Record.Unexamined, u)
		}
	}
	for f, why := range t.Record.UnsupportedWhy {
		if m.Record.UnsupportedWhy == nil {
			m.Record.UnsupportedWhy = map[string]string{}
		}
		m.Record.UnsupportedWhy[f] = why
	}
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

// oneRun checks that results are one run: the same seed and
// configuration, and, when they are shards, every shard exactly once.
func oneRun(rs []*record.Result) error {
	name := func(i int) string {
		if rs[i].Source != "" {
			return rs[i].Source
		}
		return fmt.Sprintf("result %d", i+1)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].Seed != rs[0].Seed {
			return fmt.Errorf("%s (seed %d) and %s (seed %d) are not from one run: seeds differ, and the shards of a run share its seed", name(0), rs[0].Seed, name(i), rs[i].Seed)
		}
		if a, b := rs[0].Meta.ConfigDigest, rs[i].Meta.ConfigDigest; a != "" && b != "" && a != b {
			return fmt.Errorf("%s and %s were made with different configurations (sha256 %.12s… and %.12s…)", name(0), name(i), a, b)
		}
	}
	if len(rs) == 1 && rs[0].Meta.Shard == "" {
		return nil
	}
	n := 0
	seen := map[int]string{}
	for i, r := range rs {
		if r.Meta.Shard == "" {
			return fmt.Errorf("%s is a whole run, not a shard: merge only the shards of one run", name(i))
		}
		si, sn, err := ParseShard(r.Meta.Shard)
		if err != nil {
			return fmt.Errorf("%s: meta.shard: %w", name(i), err)
		}
		if n == 0 {
			n = sn
		}
		if sn != n {
			return fmt.Errorf("%s is shard %s but %s is shard %s: the shards of a run share n", name(0), rs[0].Meta.Shard, name(i), r.Meta.Shard)
		}
		if prev, dup := seen[si]; dup {
			return fmt.Errorf("%s and %s are both shard %d/%d: their probes would be in two shards", prev, name(i), si, n)
		}
		seen[si] = name(i)
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard(s) %s missing: the merged report would judge part of the run", strings.Join(missing, ", "))
	}
	return nil
}

var shardPattern = lazyregexp.New(`^([0-9]+)/([0-9]+)$`)

// ParseShard parses a shard "i/n" (1 ≤ i ≤ n).
func ParseShard(s string) (i, n int, err error) {
	m := shardPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("%q is not i/n (e.g. 2/4)", s)
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("%q: expected 1 ≤ i ≤ n", s)
	}
	return i, n, nil
}
