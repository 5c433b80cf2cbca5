package faults

import "github.com/idemcheck/idemcheck/fakes"

// NameDownstreamFailBefore is the registered name of DownstreamFailBefore.
const NameDownstreamFailBefore = "downstream-503"

// DownstreamFailBefore makes the fake answer the target's first downstream
// call for the attempt with 503, without recording any effect. A correct
// target reports the failure and lets the retry do the work; a target that
// marks the key done before its downstream call succeeds acknowledges the
// retry with no effect.
type DownstreamFailBefore struct{}

// Name implements Fault.
func (*DownstreamFailBefore) Name() string { return NameDownstreamFailBefore }

// Rule implements DownstreamFault.
func (*DownstreamFailBefore) Rule(marker string) fakes.Rule {
	return fakes.Rule{Marker: marker, Times: 1, Action: fakes.FailBefore}
}
