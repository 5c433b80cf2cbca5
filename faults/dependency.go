package faults

import (
	"time"

	"github.com/idemcheck/idemcheck/deps"
)

// DependencyFault is a fault injected into the target's own database or
// cache, by the proxy the harness puts in front of a declared dependency
// (see package deps): the intent's write fails, its statements stall, the
// answer to its commit is lost. Only a target that declares the
// dependency can take it; the harness arms it for the attempt's intent.
type DependencyFault interface {
	Fault
	// Dependency names the declared dependency the fault acts on; ""
	// means every one the target declares.
	Dependency() string
	// DepRule returns the rule to arm in the proxy for intent (its
	// marker); Hook is left for the harness to set.
	DepRule(intent string) deps.Rule
}

// Refuser is a DependencyFault that acts on the dependency's
// connections rather than one intent's statements: the dependency
// refuses new connections for Window, as a database that restarts.
type Refuser interface {
	DependencyFault
	RefuseWindow() time.Duration
}

// Disrupts says whether f acts on the whole target rather than on the
// attempt it is armed for: a crash kills the target, a Refuser restarts
// its database. Every call in flight meets such a fault, so it must not
// run beside another step or another trial on the same target: their
// failures would be its doing, and laid at the door of their own faults.
func Disrupts(f Fault) bool {
	switch f.(type) {
	case CrashFault, Refuser:
		return true
	}
	return false
}

// Leaver is a DependencyFault whose client gives up once the fault has
// acted (the proxy's signal), and retries while the dependency still
// holds the first attempt's work.
type Leaver interface {
	DependencyFault
	LeavesWhenFired() bool
}

// Holder is a fault that keeps the target's own work for the attempt it
// acts on waiting, for up to Holds, after the client has given up on
// that attempt: meanwhile the first attempt is still running in the
// target, and a correct target may rightly answer the retries "in
// progress" (409, 425, 429). The harness waits such answers out for
// Holds on top of its usual bound (harness.WithStuckWait), so that a
// target is not called stuck for work the fault itself is holding.
type Holder interface {
	Fault
	Holds() time.Duration
}

// Stretcher is a Holder that can hold longer: HoldingAtLeast returns a
// copy of it that holds the target's work for at least d (itself, when
// it already does). A queue consumer's target stretches its holds past
// the broker's ack deadline, so that the redelivery comes while the
// first delivery is still held.
type Stretcher interface {
	Holder
	HoldingAtLeast(d time.Duration) Fault
}

// ClassDependency is the class of the dependency faults.
const ClassDependency Class = "dependency"

// dep is what every dependency fault's settings share.
type dep struct {
	// Dep names the declared dependency the fault acts on; empty means
	// every one the target declares.
	Dep string `json:"dependency,omitempty"`
}

// Dependency implements DependencyFault.
func (d dep) Dependency() string { return d.Dep }
