package checks_test

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

func concurrentDistinctCases() []checkCase {
	return []checkCase{
		{
			why: "two of four distinct intents sent at once acknowledged with no effect: lost to another's write",
			rec: func() *record.Record {
				b := newRec()
				for k := 0; k < 4; k++ {
					i := b.intent(record.RoleDistinct, opCharge)
					if k%2 == 0 {
						b.try(i, ok(201, "created", "r"), mine())
					} else {
						b.try(i, ok(201, "created", "r"))
					}
				}
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckConcurrentDistinct: {critical}},
			msgs: map[string][]string{checks.CheckConcurrentDistinct: {"charge: 2 of 4 distinct intents sent at once were acknowledged but left no effect (" + markerOf(2) + ", " + markerOf(4) + ")"}},
		},
		{
			why: "every distinct intent left its effect; one refused is not lost",
			rec: func() *record.Record {
				b := newRec()
				for k := 0; k < 3; k++ {
					b.try(b.intent(record.RoleDistinct, opCharge), ok(201, "created", "r"), mine())
				}
				b.try(b.intent(record.RoleDistinct, opCharge), failed(503))
				return b.done()
			}(),
			pass: []string{checks.CheckConcurrentDistinct},
		},
		{
			why:   "nothing was sent at once",
			rec:   sequentialOK(),
			skip:  []string{checks.CheckConcurrentDistinct},
			notes: map[string]string{checks.CheckConcurrentDistinct: "the target takes no calls at once, or its effects are attributed by delta, one intent at a time"},
		},
	}
}
