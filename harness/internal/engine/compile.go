package engine

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/scenarios"
)

// compileTrial turns a generated trial into the probe that runs it (a
// fixed trial and a generated one run through the same interpreter): each
// step becomes one step of the probe, with the role its key policy gives
// it, except a step that sends other keys (Fill), which becomes that many
// fillers, and a wait a pause. byName resolves fault names; burster says
// whether the target takes a burst; whole whether a fault acts on the
// whole target (disrupts), which no step of a group may take. A plain
// intent retried after other keys or a pause is a late one, judged by
// retry.late.
func compileTrial(info record.TargetInfo, tr scenarios.Trial, byName map[string]faults.Fault, burster bool, whole func(faults.Fault) bool) (checks.Probe, error) {
	p := checks.Probe{Name: "trial"}
	at := make([]int, len(tr.Steps)) // trial step → the probe step of its intent, -1 for none
	ref := func(i, of int) (int, error) {
		if of < 0 || of >= i || at[of] < 0 {
			return 0, fmt.Errorf("trial step %d refers to step %d, which made no intent before it", i+1, of+1)
		}
		return at[of], nil
	}
	for i, s := range tr.Steps {
		label := fmt.Sprintf("trial step %d", i+1)
		at[i] = -1
		if s.Wait > 0 {
			p.Steps = append(p.Steps, checks.Step{Pause: s.Wait, Restart: s.Restart, KeyFrom: -1, InputsFrom: -1, Label: label})
			continue
		}
		op, ok := info.Operation(s.Op)
		if !ok {
			return checks.Probe{}, fmt.Errorf("trial step %d: the target has no operation %q", i+1, s.Op)
		}
		if s.Fill > 0 {
			for k := range s.Fill {
				f := checks.Fresh(record.RoleFiller, s.Op)
				f.Label, f.Restart = label, s.Restart && k == 0
				p.Steps = append(p.Steps, f)
			}
			at[i] = len(p.Steps) - 1
			continue
		}
		fault := byName[s.Fault]
		if fault != nil && whole(fault) && tr.GroupEnd(tr.GroupStart(i))-tr.GroupStart(i) > 1 {
			return checks.Probe{}, fmt.Errorf("trial step %d: %s %s, so it cannot run at the same time as another step", i+1, s.Fault, disruption(fault))
		}
		st := checks.Fresh(record.RolePlain, s.Op)
		st.Fault, st.Label, st.Restart, st.With, st.GiveUp = fault, label, s.Restart, s.With && i > 0, s.GiveUp
		st.UntilOK = !s.GiveUp
		switch {
		case s.Key == scenarios.Again:
			j, err := ref(i, s.Of)
			if err != nil {
				return checks.Probe{}, err
			}
			st.Again, st.KeyFrom, st.InputsFrom, st.Role = true, j, j, p.Steps[j].Role
			// The intent retried is the one its first step made (step Of
			// may itself be a retry): a plain one, with other keys or a
			// pause since it was made, is a late one.
			if o := tr.Origin(s.Of); at[o] >= 0 && p.Steps[at[o]].Role == record.RolePlain && lateBetween(tr, o, i) {
				p.Steps[at[o]].Role = record.RoleLate // retry.late judges it
			}
		case !op.Mutating:
			st.Role, st.UntilOK = record.RoleRead, false
		case s.DryRun:
			st.Role, st.DryRun, st.UntilOK = record.RoleDryRun, true, false
		case s.Burst > 1:
			st.Role = record.RoleBurst
			if burster {
				st.Burst = s.Burst
			}
		case s.Key == scenarios.None:
			st.Role, st.NoKey = record.RoleNoKey, true
		case s.Key == scenarios.Twin:
			j, err := ref(i, s.Of)
			if err != nil {
				return checks.Probe{}, err
			}
			st.Role, st.InputsFrom = record.RoleTwin, j
		case s.Key == scenarios.Changed:
			j, err := ref(i, s.Of)
			if err != nil {
				return checks.Probe{}, err
			}
			st.Role, st.KeyFrom, st.InputsFrom, st.Change, st.UntilOK, st.RetryFailures = record.RoleMismatch, j, j, true, false, true
		}
		at[i] = len(p.Steps)
		p.Steps = append(p.Steps, st)
	}
	return p, nil
}

// lateBetween says whether a step between steps from and to sent other
// keys or waited: a retry at step to is then a late one.
func lateBetween(tr scenarios.Trial, from, to int) bool {
	for _, s := range tr.Steps[from+1 : to] {
		if s.Fill > 0 || s.Wait > 0 {
			return true
		}
	}
	return false
}
