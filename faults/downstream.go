package faults

import "github.com/idemcheck/idemcheck/fakes"

// Names of the downstream faults.
const (
	NameDownstreamFailBefore   = "downstream-503"
	NameDownstreamFailAfter    = "downstream-503-after"
	NameDownstreamResetAfter   = "downstream-reset-after"
	NameDownstreamTimeoutAfter = "downstream-timeout-after"
)

// DownstreamFailBefore makes the fake answer the target's downstream call
// for the attempt with 503, without recording any effect (the first call,
// or, where the intent makes several, each in turn: see the harness's
// effect points). A correct target reports the failure and lets the retry
// do the work; a target that marks the key done before its downstream call
// succeeds acknowledges the retry with no effect.
type DownstreamFailBefore struct{}

// Name implements Fault.
func (*DownstreamFailBefore) Name() string { return NameDownstreamFailBefore }

// Ambiguous implements DownstreamFault: nothing happened.
func (*DownstreamFailBefore) Ambiguous() bool { return false }

// Rule implements DownstreamFault.
func (*DownstreamFailBefore) Rule(marker string) fakes.Rule {
	return fakes.Rule{Marker: marker, Times: 1, Action: fakes.FailBefore}
}

// DownstreamFailAfter makes the fake record the effect, then answer 503: the
// target cannot know its downstream call took effect. Unless it passed its
// key on, its retry (or the client's) causes a second effect.
type DownstreamFailAfter struct{}

// Name implements Fault.
func (*DownstreamFailAfter) Name() string { return NameDownstreamFailAfter }

// Ambiguous implements DownstreamFault.
func (*DownstreamFailAfter) Ambiguous() bool { return true }

// Rule implements DownstreamFault.
func (*DownstreamFailAfter) Rule(marker string) fakes.Rule {
	return fakes.Rule{Marker: marker, Times: 1, Action: fakes.FailAfter}
}

// DownstreamResetAfter makes the fake record the effect, then reset the
// target's connection without a reply.
type DownstreamResetAfter struct{}

// Name implements Fault.
func (*DownstreamResetAfter) Name() string { return NameDownstreamResetAfter }

// Ambiguous implements DownstreamFault.
func (*DownstreamResetAfter) Ambiguous() bool { return true }

// Rule implements DownstreamFault.
func (*DownstreamResetAfter) Rule(marker string) fakes.Rule {
	return fakes.Rule{Marker: marker, Times: 1, Action: fakes.ResetAfter}
}

// DownstreamTimeoutAfter makes the fake record the effect, then hold its
// reply until the target gives up: the ambiguous downstream timeout. It
// takes as long as the target's own downstream timeout, so it is not in the
// default set.
type DownstreamTimeoutAfter struct{}

// Name implements Fault.
func (*DownstreamTimeoutAfter) Name() string { return NameDownstreamTimeoutAfter }

// Ambiguous implements DownstreamFault.
func (*DownstreamTimeoutAfter) Ambiguous() bool { return true }

// Rule implements DownstreamFault.
func (*DownstreamTimeoutAfter) Rule(marker string) fakes.Rule {
	return fakes.Rule{Marker: marker, Times: 1, Action: fakes.HangAfter}
}
