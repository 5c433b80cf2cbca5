package record

import "github.com/idemcheck/idemcheck/fakes"

// Severity ranks a finding by the rubric level it forbids.
type Severity string

// The severities, from the worst.
const (
	// Critical: a duplicated, lost or merged side effect (score 0).
	Critical Severity = "critical"
	// Major: replies that hide or misstate what happened (score at most 1).
	Major Severity = "major"
	// Minor: no enforcement or dry-run at framework level (score at most 2).
	Minor Severity = "minor"
)

// Rank orders severities by how much they forbid: critical 3, major 2,
// minor 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Critical:
		return 3
	case Major:
		return 2
	case Minor:
		return 1
	}
	return 0
}

// Finding is one violated property, with its evidence.
type Finding struct {
	Check     string   `json:"check"`
	Severity  Severity `json:"severity"`
	Operation string   `json:"operation,omitempty"`
	Fault     string   `json:"fault,omitempty"`
	// Point is the downstream call Fault was armed at ("email",
	// "payments #2"), when the operation makes more than one: one fault
	// at two calls makes two findings, each its own across runs.
	Point    string   `json:"point,omitempty"`
	Message  string   `json:"message"`
	Evidence Evidence `json:"evidence"`
	// Trial is true when a generated trial found it: the minimal
	// counterexample is the target's Scenario.Counterexample.
	Trial bool `json:"trial,omitempty"`
	// Flaky is true when replaying its counterexample did not fail the same
	// way.
	Flaky bool `json:"flaky,omitempty"`
	// Replay is a command that reproduces it, when the caller knows one.
	Replay string `json:"replay,omitempty"`
}

// Evidence is what shows a finding: the intents involved, with all their
// attempts, and the ledger rows attributed to them.
type Evidence struct {
	Intents []Intent       `json:"intents,omitempty"`
	Effects []fakes.Effect `json:"effects,omitempty"`
}

// FindingKey identifies a finding across runs: its check, operation and
// cause (the fault it was found under, or none, and the downstream call
// the fault was armed at, when the operation makes more than one).
// Messages are not part of it: they quote keys and ids that differ from
// run to run.
type FindingKey struct {
	Check     string `json:"check"`
	Operation string `json:"operation,omitempty"`
	Fault     string `json:"fault,omitempty"`
	// Point is Finding.Point.
	Point    string   `json:"point,omitempty"`
	Severity Severity `json:"severity"`
	// Message is the first such finding's message, for people.
	Message string `json:"message"`
}

// String is the key as "check operation [fault]", or "[fault at point]".
func (k FindingKey) String() string {
	s := k.Check
	if k.Operation != "" {
		s += " " + k.Operation
	}
	if k.Fault != "" {
		s += " [" + FaultAt(k.Fault, k.Point) + "]"
	}
	return s
}

// FaultAt names a fault with the downstream call it was armed at, when
// there is one: "downstream-503 at email".
func FaultAt(fault, point string) string {
	if point == "" {
		return fault
	}
	return fault + " at " + point
}

// ID is what identifies the finding across runs, as one string: its
// check, operation, fault and point. Two findings with the same ID are
// the same finding, whatever their severities and messages.
func (k FindingKey) ID() string {
	return k.Check + "\x00" + k.Operation + "\x00" + k.Fault + "\x00" + k.Point
}

// Key returns the finding's key across runs (see FindingKey).
func (f Finding) Key() FindingKey {
	return FindingKey{Check: f.Check, Operation: f.Operation, Fault: f.Fault, Point: f.Point, Severity: f.Severity, Message: f.Message}
}
