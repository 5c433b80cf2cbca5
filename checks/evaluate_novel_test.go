package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// A trial's duplicate under a fault the probes already reported at the
// same operation restates it, whichever of the checks that judge retries
// after a fault owns the trial's intent; a finding of another property
// under that fault, or a worse one, is new.
func TestNovelReadsTheRetryChecksAsOne(t *testing.T) {
	known := []record.Finding{{Check: checks.CheckRetryAfterFault, Operation: "charge", Fault: faults.NameClientDisconnect, Severity: record.Critical}}
	same := record.Finding{Check: checks.CheckDownstream, Operation: "charge", Fault: faults.NameClientDisconnect, Severity: record.Critical}
	lost := record.Finding{Check: checks.CheckExactlyOnce, Operation: "charge", Fault: faults.NameClientDisconnect, Severity: record.Critical}
	other := record.Finding{Check: checks.CheckDownstream, Operation: "refund", Fault: faults.NameClientDisconnect, Severity: record.Critical}
	assert.Equal(t, []record.Finding{lost, other}, checks.Novel(known, []record.Finding{same, lost, other}))
}

// A trial's duplicate named after a fault its intent met, but made by a
// later retry that met none, restates the probes' retry.sequential of the
// operation; made under the fault, or with no such probe finding, it is
// new.
func TestNovelReadsAPlainRetrysDuplicateAsTheSequentialOne(t *testing.T) {
	sequential := record.Finding{Check: checks.CheckRetrySequential, Operation: "charge", Severity: record.Critical}
	trial := func(secondFaulted bool) record.Finding {
		second := record.Attempt{N: 2, LedgerBefore: 1, LedgerAfter: 2}
		if secondFaulted {
			second.Fault = faults.NameDepError
		}
		in := record.Intent{ID: 1, Operation: "charge", Marker: "idem-m", Attempts: []record.Attempt{
			{N: 1, Reply: record.Reply{Outcome: record.OK}, Fault: faults.NameDepError, LedgerBefore: 0, LedgerAfter: 1}, second}}
		return record.Finding{Check: checks.CheckDependencyRecovery, Operation: "charge", Fault: faults.NameDepError, Severity: record.Critical,
			Evidence: record.Evidence{Intents: []record.Intent{in}, Effects: []fakes.Effect{{Seq: 1, Markers: []string{"idem-m"}}, {Seq: 2, Markers: []string{"idem-m"}}}}}
	}
	assert.Empty(t, checks.Novel([]record.Finding{sequential}, []record.Finding{trial(false)}), "made by a plain retry")
	assert.Len(t, checks.Novel([]record.Finding{sequential}, []record.Finding{trial(true)}), 1, "made under the fault")
	other := record.Finding{Check: checks.CheckKeyMismatch, Operation: "charge", Severity: record.Minor}
	assert.Len(t, checks.Novel([]record.Finding{other}, []record.Finding{trial(false)}), 1, "no sequential finding known")
}
