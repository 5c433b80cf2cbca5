package faults

import "github.com/idemcheck/idemcheck/deps"

// NameDepResetAfterCommit is the registered name of DepResetAfterCommit.
const NameDepResetAfterCommit = "dep-reset-after-commit"

// DepResetAfterCommit lets the commit that carries the intent's write
// reach the database and be answered, then resets the target's connection
// instead of passing the answer on: the write is committed, and the
// target cannot know it. A correct target keeps its key and its effect in
// that one transaction, so that the retry finds the key and replays; one
// that writes the effect and records the key apart does it twice.
type DepResetAfterCommit struct{ dep }

// Name implements Fault.
func (*DepResetAfterCommit) Name() string { return NameDepResetAfterCommit }

// DepRule implements DependencyFault.
func (f *DepResetAfterCommit) DepRule(intent string) deps.Rule {
	return deps.Rule{Intent: intent, Action: deps.ResetAfterCommit}
}
