package checks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
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
