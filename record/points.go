package record

import (
	"fmt"
	"strings"
)

// EffectPoint is one downstream call an intent's handling makes: the
// Index-th call of the intent (from 1), the N-th of them to the fake Fake.
// A fault armed at a point acts on that call only, the calls before it
// going through untouched.
type EffectPoint struct {
	Index int    `json:"index"`
	Fake  string `json:"fake"`
	N     int    `json:"n"`
}

// String names the point as a report does: the fake, with the call's
// rank when the intent calls that fake more than once ("payments #2").
func (p EffectPoint) String() string {
	if p.N > 1 {
		return fmt.Sprintf("%s #%d", p.Fake, p.N)
	}
	return p.Fake
}

// OperationPoints are the downstream calls a clean run of Operation made,
// in order.
type OperationPoints struct {
	Operation string        `json:"operation"`
	Points    []EffectPoint `json:"points"`
}

// PointsOf returns the effect points r found for operation op, nil when
// it found at most one.
func (r *Record) PointsOf(op string) []EffectPoint {
	for _, o := range r.EffectPoints {
		if o.Operation == op {
			return o.Points
		}
	}
	return nil
}

// FaultCoverage says, for one fault at one operation with several effect
// points, which of them the fault was armed at and acted on.
type FaultCoverage struct {
	Operation string          `json:"operation"`
	Fault     string          `json:"fault"`
	Points    []PointCoverage `json:"points"`
}

// PointCoverage is one effect point of a FaultCoverage: Reached is true
// when a fault armed there acted.
type PointCoverage struct {
	Point   EffectPoint `json:"point"`
	Reached bool        `json:"reached"`
}

// Unreached returns the points of c that the fault never reached.
func (c FaultCoverage) Unreached() []EffectPoint {
	var out []EffectPoint
	for _, p := range c.Points {
		if !p.Reached {
			out = append(out, p.Point)
		}
	}
	return out
}

// String is the coverage line: "charge: crash-after-effect: payments ✓
// email ✓", a point never reached marked ✗.
func (c FaultCoverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s:", c.Operation, c.Fault)
	for _, p := range c.Points {
		mark := "✓"
		if !p.Reached {
			mark = "✗"
		}
		fmt.Fprintf(&b, " %s %s", p.Point, mark)
	}
	return b.String()
}

// Coverage returns, for every operation of r with several effect points
// and every fault armed at one of them, which points the fault reached:
// an attempt armed at the point whose fault acted. A point the fault was
// never armed at (the run ended first) is not reached. In the order of
// r.EffectPoints, then of the faults' first attempts.
func (r *Record) Coverage() []FaultCoverage {
	type key struct{ op, fault string }
	reached := map[key]map[int]bool{}
	var order []key
	for i := range r.Intents {
		in := &r.Intents[i]
		for _, a := range in.Attempts {
			if a.Point == nil || a.Fault == "" {
				continue
			}
			k := key{in.Operation, a.Fault}
			if reached[k] == nil {
				reached[k] = map[int]bool{}
				order = append(order, k)
			}
			if !a.NotFired {
				reached[k][a.Point.Index] = true
			}
		}
	}
	var out []FaultCoverage
	for _, o := range r.EffectPoints {
		for _, k := range order {
			if k.op != o.Operation {
				continue
			}
			c := FaultCoverage{Operation: k.op, Fault: k.fault}
			for _, p := range o.Points {
				c.Points = append(c.Points, PointCoverage{Point: p, Reached: reached[k][p.Index]})
			}
			out = append(out, c)
		}
	}
	return out
}
