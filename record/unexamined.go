package record

import "strings"

// Cause says why a check, or part of one, was not examined.
type Cause string

// The causes of a check not examined.
const (
	// CauseUnsupported: the harness could not do what the check needs to
	// this target: a fault it cannot inject (a target it did not start
	// cannot be killed), a capability the adapter lacks (bursts).
	CauseUnsupported Cause = "unsupported"
	// CauseUnfired: a fault was armed for the check but never fired, so
	// the attempt it was meant for ran without it.
	CauseUnfired Cause = "unfired"
	// CauseNothing: the target offered the check nothing to judge (no
	// operation of the sort it probes).
	CauseNothing Cause = "nothing"
	// CauseDisabled: the configuration or the command line left the check
	// out.
	CauseDisabled Cause = "disabled"
	// CauseClock: the check's waits passed on the target's own clock
	// (harness.Env.Now, which the target reads), moved on at once: what
	// the target times by another clock (time.Now) did not see them pass.
	CauseClock Cause = "clock"
	// CauseRefused: the attempt a fault acted on was answered with a
	// final refusal (Reply.Retryable is false: a 4xx, a tool's isError
	// that says no status), so no retry with the same key followed it,
	// and what a retry after the fault does was not seen.
	CauseRefused Cause = "refused"
	// CauseCovered: a fault the harness could not inject into this
	// target, whose point another fault of the run did act at (a crash
	// before or after the effect of a target counted only by observers,
	// and the crash before or after its database's commit): what the
	// fault was to show was examined by the other.
	CauseCovered Cause = "covered"
)

// Unexamined is a check, or the part of one under a fault or at an
// operation, that a run did not examine, and why.
type Unexamined struct {
	Check string `json:"check"`
	// Operation is set when only that operation went unexamined.
	Operation string `json:"operation,omitempty"`
	// Fault is set when only the check's part under that fault went
	// unexamined.
	Fault  string `json:"fault,omitempty"`
	Cause  Cause  `json:"cause"`
	Reason string `json:"reason"`
}

// Limits reports whether u limits what a score can claim: the harness
// could not examine something the target does, as opposed to a target
// offering nothing to examine or a check left out on purpose.
func (u Unexamined) Limits() bool {
	return u.Cause == CauseUnsupported || u.Cause == CauseUnfired || u.Cause == CauseRefused
}

// Subject is what went unexamined, as "check", "check under fault" or
// "check at operation under fault".
func (u Unexamined) Subject() string {
	s := u.Check
	if u.Operation != "" {
		s += " at " + u.Operation
	}
	if u.Fault != "" {
		s += " under " + u.Fault
	}
	return s
}

// String is u as one phrase: "crash.recovery not examined: why".
func (u Unexamined) String() string {
	return u.Subject() + " not examined: " + u.Reason
}

// LimitsSummary sums up, as one phrase, the entries of us that limit a
// score (Unexamined.Limits): one per check and reason, the faults
// concerned named together; "" when none does.
func LimitsSummary(us []Unexamined) string {
	type group struct {
		check, reason string
		faults        []string
	}
	var groups []*group
	for _, u := range us {
		if !u.Limits() {
			continue
		}
		var g *group
		for _, x := range groups {
			if x.check == u.Check && x.reason == u.Reason {
				g = x
				break
			}
		}
		if g == nil {
			g = &group{check: u.Check, reason: u.Reason}
			groups = append(groups, g)
		}
		if u.Fault != "" && !contains(g.faults, u.Fault) {
			g.faults = append(g.faults, u.Fault)
		}
	}
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		s := g.check
		if len(g.faults) > 0 {
			s += " (under " + strings.Join(g.faults, ", ") + ")"
		}
		parts = append(parts, s+" not examined: "+g.reason)
	}
	return strings.Join(parts, "; ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
