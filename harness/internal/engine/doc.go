// Package engine runs one target: it starts instances of it, drives them
// through the probes the checks plan and the generated trials, records
// every attempt, and scores the record. It is package harness's run
// engine, out of sight of the harness's users: harness turns a Spec and
// its Options into a [Spec] and a [Config], and runs each target in a
// [Session].
//
// A Session carries what every part of one target's run works with (the
// context, the spec, the configuration, the target's seed, where progress
// is said) and, for the generated trials, what the probes found. Its
// parts, one concern a file:
//
//   - probe.go: the probes' run, on an instance of the target of its own;
//   - runner.go: one attempt at an intent, under its fault; arm*.go: how
//     each kind of fault is armed for an attempt;
//   - interpret.go: the one interpreter of steps, which the probes and the
//     trials (compiled by compile.go) both run through;
//   - trials.go, property.go, shrink.go: the generated trials, each judged
//     against what the probes found, and the shrinking and replays of a
//     failing one; early.go: trials that start beside the probes' tails;
//   - trialhost.go: the instances the trials share, or start anew.
//
// The engine sees a target through the interfaces of target.go, the same
// method sets as package harness's Target and its abilities.
package engine
