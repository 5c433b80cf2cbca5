package checks

import (
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// Planner says what the probe plan of a target is drawn from (see Plan).
type Planner struct {
	// Checks are the checks asked, in report order; nil means the
	// registered ones (Checks).
	Checks []Invariant
	// Enabled are the ids of the checks whose probes are planned.
	Enabled map[string]bool
	// Faults are the faults to try, in the order given; Supports says
	// which of them the target can take (nil: every one).
	Faults   []faults.Fault
	Supports func(faults.Fault) bool
	// Burst is how many copies a burst sends (0 for none), Bursts how
	// many bursts a check that sends them sends per operation.
	Burst, Bursts int
	// Late tunes retry.late's probe; its zero settings take their
	// defaults.
	Late LateOptions
}

// Planned is a probe of a plan, with the checks it serves.
type Planned struct {
	Probe
	// Serves are the ids of the checks that declared the probe.
	Serves []string
}

// Plan asks every enabled check that applies to info's capabilities for
// its probes against each operation of info (mutating operations first),
// in the order of checks; a probe that several checks declare alike runs
// once. The checks that own fault classes are asked together, at the place
// of the first of them, once per fault in the order the faults were given,
// so the retries after each fault run in that order whichever check judges
// them.
func (pl Planner) Plan(info record.TargetInfo) []Planned {
	checks, enabled, fs := pl.Checks, pl.Enabled, pl.Faults
	if checks == nil {
		checks = registry
	}
	supports := pl.Supports
	if supports == nil {
		supports = func(faults.Fault) bool { return true }
	}
	burst, bursts, late := pl.Burst, pl.Bursts, pl.Late.WithDefaults()
	caps := info.Caps()
	if !caps.Burst {
		burst = 0
	}
	var ops []record.Operation
	for _, op := range info.Operations {
		if op.Mutating {
			ops = append(ops, op)
		}
	}
	for _, op := range info.Operations {
		if !op.Mutating {
			ops = append(ops, op)
		}
	}
	owners := map[faults.Class]Invariant{}
	byID := map[string]Invariant{}
	for _, c := range checks {
		byID[c.ID] = c
		for _, fc := range c.Faults {
			if _, ok := owners[fc]; !ok {
				owners[fc] = c
			}
		}
	}
	var ps []Planned
	at := map[string]int{}
	add := func(c Invariant, pc ProbeContext) {
		if !enabled[c.ID] || c.Probes == nil || !c.applies(caps) {
			return // a check that does not apply sends nothing
		}
		for _, p := range c.Probes(pc) {
			k := probeKey(p)
			if i, ok := at[k]; ok {
				ps[i].Serves = append(ps[i].Serves, c.ID)
				continue
			}
			at[k] = len(ps)
			ps = append(ps, Planned{Probe: p, Serves: []string{c.ID}})
		}
	}
	for _, op := range ops {
		pc := ProbeContext{Op: op, Caps: caps, Burst: burst, Bursts: max(bursts, 1), Ops: info.Operations, Late: late}
		faultsPlanned := false
		for _, c := range checks {
			if len(c.Faults) == 0 {
				add(c, pc)
				continue
			}
			if faultsPlanned {
				continue
			}
			faultsPlanned = true
			for _, f := range fs {
				owner, ok := owners[faults.ClassOf(f)]
				if !ok { // a class no check lists: see faultOwner
					owner, ok = byID[CheckRetryAfterFault]
				}
				if ok && supports(f) {
					fpc := pc
					fpc.Faults = []faults.Fault{f}
					add(owner, fpc)
				}
			}
		}
	}
	return spread(ps)
}

// spread moves the probes marked Spread to evenly spaced places among the
// others, keeping the order of each group: the k-th of m goes after
// (k+1)/(m+1) of the rest.
func spread(ps []Planned) []Planned {
	var rest, moved []Planned
	for _, p := range ps {
		if p.Spread {
			moved = append(moved, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(moved) == 0 || len(rest) == 0 {
		return ps
	}
	out := make([]Planned, 0, len(ps))
	next := 0
	for k, p := range moved {
		at := (k + 1) * len(rest) / (len(moved) + 1)
		out = append(out, rest[next:at]...)
		next = at
		out = append(out, p)
	}
	return append(out, rest[next:]...)
}

// probeKey identifies a probe: its name and the operations of its steps.
func probeKey(p Probe) string {
	k := p.Name
	for _, s := range p.Steps {
		k += "\x00" + s.Op
	}
	return k
}
