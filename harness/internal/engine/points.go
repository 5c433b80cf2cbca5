package engine

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// maxPoints bounds the effect points of an operation that each fault is
// armed at: an intent that makes more downstream calls has its first
// maxPoints faulted, the rest named in the coverage as not reached.
const maxPoints = 4

// atPoint says whether f acts at one downstream call of an intent (a
// fake's rule, a crash before or after its effect): such a fault is armed
// at each effect point of the operation in turn.
func atPoint(f faults.Fault) bool {
	if c, ok := f.(faults.CrashFault); ok {
		return c.CrashPoint() == faults.BeforeEffect || c.CrashPoint() == faults.AfterEffect
	}
	_, ok := f.(faults.DownstreamFault)
	return ok
}

// pointProbe says whether p is a probe that arms a fault at an effect
// point: one step, whose first attempt takes such a fault.
func pointProbe(p checks.Probe) bool {
	return len(p.Steps) == 1 && p.Steps[0].Fault != nil && !p.Steps[0].Again && atPoint(p.Steps[0].Fault)
}

// effectPoints returns the downstream calls a clean run of op made, in
// order, when there were more than one: read from the ledger of the first
// intent of op in the record whose first attempt was made without a fault
// and succeeded. It is found once per operation, and kept in the record
// (Record.EffectPoints); nil while no clean run of op has been made, or
// when it made at most one call.
func (r *runner) effectPoints(op string) []record.EffectPoint {
	if r.pointsKnown[op] {
		return r.rec.PointsOf(op)
	}
	for i := range r.rec.Intents {
		in := &r.rec.Intents[i]
		if in.Operation != op || len(in.Attempts) == 0 {
			continue
		}
		a := in.Attempts[0]
		if a.Fault != "" || a.DryRun || a.Burst || a.Outcome != record.OK || a.LedgerAfter <= a.LedgerBefore {
			continue
		}
		var ps []record.EffectPoint
		per := map[string]int{}
		for _, e := range r.ledger.Effects() {
			if e.Seq <= a.LedgerBefore || e.Seq > a.LedgerAfter || !e.HasMarker(in.Marker) || e.Observed {
				continue // an observer's find is no call a fault can act at
			}
			per[e.Fake]++
			ps = append(ps, record.EffectPoint{Index: len(ps) + 1, Fake: e.Fake, N: per[e.Fake]})
		}
		if len(ps) == 0 {
			continue
		}
		if r.pointsKnown == nil {
			r.pointsKnown = map[string]bool{}
		}
		r.pointsKnown[op] = true
		if len(ps) > 1 {
			r.rec.EffectPoints = append(r.rec.EffectPoints, record.OperationPoints{Operation: op, Points: ps})
			return ps
		}
		return nil
	}
	return nil
}

// atFirstPoint returns p with its fault armed at the first effect point
// of its operation, when that operation has several: the coverage then
// counts it.
func (r *runner) atFirstPoint(p checks.Probe) checks.Probe {
	if !pointProbe(p) {
		return p
	}
	ps := r.effectPoints(p.Steps[0].Op)
	if len(ps) < 2 {
		return p
	}
	p.Steps = []checks.Step{p.Steps[0]}
	pt := ps[0]
	p.Steps[0].Point = &pt
	return p
}

// laterPoints returns the probes that arm p's fault at each effect point
// of its operation after the first (up to maxPoints): the same step, the
// fault at that call, named after it.
func (r *runner) laterPoints(p checks.Probe) []checks.Probe {
	if !pointProbe(p) {
		return nil
	}
	ps := r.effectPoints(p.Steps[0].Op)
	if len(ps) < 2 {
		return nil
	}
	var out []checks.Probe
	for _, pt := range ps[1:min(len(ps), maxPoints)] {
		q := checks.Probe{Name: fmt.Sprintf("%s at %s", p.Name, pt), Steps: []checks.Step{p.Steps[0]}}
		pt := pt
		q.Steps[0].Point = &pt
		out = append(out, q)
	}
	return out
}

// notePointsUnarmed lists in the record's Unexamined the effect points a
// fault was never armed at (past maxPoints, or the run ended first); those
// armed that never acted are noteUnfired's. A shard, which runs only some
// probes, notes none.
func (r *runner) notePointsUnarmed() {
	if r.s.cfg.Shards > 1 {
		return // a shard runs some of each operation's probes only
	}
	class := map[string]faults.Class{}
	for _, f := range r.s.cfg.Faults {
		class[f.Name()] = faults.ClassOf(f)
	}
	armed := map[string]bool{}
	for _, u := range r.rec.Unfired() {
		if u.Point != nil {
			armed[u.Operation+"\x00"+u.Fault+"\x00"+u.Point.String()] = true
		}
	}
	for _, c := range r.rec.Coverage() {
		for _, pt := range c.Unreached() {
			if armed[c.Operation+"\x00"+c.Fault+"\x00"+pt.String()] {
				continue
			}
			why := "the run ended before the fault was armed at this downstream call"
			if pt.Index > maxPoints {
				why = fmt.Sprintf("the fault was never armed at this downstream call: each fault is armed at the first %d calls of an operation", maxPoints)
			}
			r.rec.Unexamined = append(r.rec.Unexamined, record.Unexamined{Check: checks.FaultOwner(class[c.Fault]), Operation: c.Operation,
				Fault: c.Fault + " at " + pt.String(), Cause: record.CauseUnfired, Reason: why})
		}
	}
}
