package harness

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// A test's failure lists a burst's alike attempts as one line, and the
// first ten effects of many: the report has them all.
func TestDescribeFindingIsShortForABurst(t *testing.T) {
	in := record.Intent{ID: 3, Operation: "charge", Role: record.RoleBurst, Key: "k-1"}
	for n := 1; n <= 20; n++ {
		in.Attempts = append(in.Attempts, record.Attempt{N: n, Reply: record.Reply{Outcome: record.OK, Status: 201, HasEffect: true, Effect: "created"}})
	}
	in.Attempts = append(in.Attempts, record.Attempt{N: 21, Fault: "reset", Reply: record.Reply{Outcome: record.Info}})
	var effs []fakes.Effect
	for i := 1; i <= 15; i++ {
		effs = append(effs, fakes.Effect{Seq: int64(i), Fake: "payments", Kind: "charge", ID: fmt.Sprintf("ch_%d", i)})
	}
	got := describeFinding(record.Finding{Check: CheckConcurrentDuplicates, Severity: record.Critical, Message: "20 copies, 15 charges",
		Evidence: record.Evidence{Intents: []record.Intent{in}, Effects: effs}})
	assert.Equal(t, `concurrent.duplicates [critical]: 20 copies, 15 charges
  intent 3 (charge, burst, key "k-1"):
    attempts 1–20: ok 201 effect "created"
    attempt 21 under reset: info 0
  effect 1: payments charge ch_1
  effect 2: payments charge ch_2
  effect 3: payments charge ch_3
  effect 4: payments charge ch_4
  effect 5: payments charge ch_5
  effect 6: payments charge ch_6
  effect 7: payments charge ch_7
  effect 8: payments charge ch_8
  effect 9: payments charge ch_9
  effect 10: payments charge ch_10
  … and 5 more effects (the report lists them all)`, got)
}
