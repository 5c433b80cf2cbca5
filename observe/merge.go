package observe

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
)

// Identity returns the identity of an effect an observer recorded, in the
// observed object's terms: its Object (Detail["object"]) and its ID (a
// primary key, an object id, a file and position). ok is false for an
// effect no observer recorded (a fake's charge), which has no such
// identity.
func Identity(e fakes.Effect) (object, id string, ok bool) {
	object, ok = e.Detail[DetailObject]
	if !ok || object == "" || e.Detail[DetailSource] == "" {
		return "", "", false
	}
	return object, e.ID, true
}

// Merge counts once an effect that several observers saw: effects with
// the same Identity (two observers declared with the same Object, such as
// a query on the orders table and a read-back of the orders API, whose
// identities agree) become one, the first recorded (lowest Seq), with
// Detail["evidence"] naming every observer that saw it and the markers of
// all. Effects of different objects, and the fakes' effects, pass
// unchanged; the order is kept. The engine calls it on the effects it is
// about to count.
func Merge(effects []fakes.Effect) []fakes.Effect {
	type group struct {
		at       int // index in out
		evidence []string
	}
	groups := map[[2]string]*group{}
	out := make([]fakes.Effect, 0, len(effects))
	for _, e := range effects {
		object, id, ok := Identity(e)
		if !ok {
			out = append(out, e)
			continue
		}
		k := [2]string{object, id}
		g := groups[k]
		if g == nil {
			groups[k] = &group{at: len(out), evidence: []string{e.Fake}}
			out = append(out, e)
			continue
		}
		first := &out[g.at]
		if !slices.Contains(g.evidence, e.Fake) {
			g.evidence = append(g.evidence, e.Fake)
		}
		for _, m := range e.Markers {
			if !first.HasMarker(m) {
				first.Markers = append(slices.Clip(first.Markers), m)
			}
		}
		if e.Seq != 0 && (first.Seq == 0 || e.Seq < first.Seq) {
			first.Seq, first.At = e.Seq, e.At
		}
	}
	for _, g := range groups {
		if len(g.evidence) < 2 {
			continue
		}
		e := &out[g.at]
		e.Detail = maps.Clone(e.Detail)
		e.Detail[DetailEvidence] = strings.Join(g.evidence, ", ")
	}
	return out
}

// MergeEffects is Merge, for the harness: an Observer merges the effects
// of every observer of a run, not only its own.
func (o *Observer) MergeEffects(effects []fakes.Effect) []fakes.Effect { return Merge(effects) }

// Disagreement reports observers of one object whose identities for the
// effects of marker never agree: each saw something of the intent, but
// no id one gave is an id another gave (a query's "17" beside an API's
// "ord_17"), so Merge cannot tell that they saw the same thing, and every
// effect would be counted once by each. nil when they agree, or when
// fewer than two observers of an object saw anything of it.
func Disagreement(effects []fakes.Effect, marker string) error {
	ids := map[string]map[string][]string{} // object → observer → ids
	for _, e := range effects {
		object, id, ok := Identity(e)
		if !ok || !e.HasMarker(marker) {
			continue
		}
		if ids[object] == nil {
			ids[object] = map[string][]string{}
		}
		if !slices.Contains(ids[object][e.Fake], id) {
			ids[object][e.Fake] = append(ids[object][e.Fake], id)
		}
	}
	objects := slices.Sorted(maps.Keys(ids))
	for _, object := range objects {
		names := slices.Sorted(maps.Keys(ids[object]))
		for i, a := range names {
			for _, b := range names[i+1:] {
				if slices.ContainsFunc(ids[object][a], func(id string) bool { return slices.Contains(ids[object][b], id) }) {
					continue
				}
				return fmt.Errorf("observers %s and %s both observe %s, but name what they saw of one intent differently (%s: %s; %s: %s): their effects cannot be counted once, and each would be counted by both. Make both give the same identity (the query's first column, the read-back's id path), or give them different objects if they see different things",
					a, b, object, a, idList(ids[object][a]), b, idList(ids[object][b]))
			}
		}
	}
	return nil
}

// idList lists at most 3 ids, sorted, for a message.
func idList(ids []string) string {
	ids = slices.Clone(ids)
	sort.Strings(ids)
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + fmt.Sprintf(" and %d more", len(ids)-3)
	}
	return strings.Join(ids, ", ")
}

// CheckIdentities is Disagreement, for the harness: an Observer checks
// the identities of every observer of a run, not only its own.
func (o *Observer) CheckIdentities(effects []fakes.Effect, marker string) error {
	return Disagreement(effects, marker)
}
