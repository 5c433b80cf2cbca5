package checks_test

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

func concurrentDistinctCases() []checkCase {
	return []checkCase{
		{
			why: "orders missing for two of four distinct intents, whose replies name no order: an effect some inputs make is not expected of every call",
			rec: func() *record.Record {
				b := newRec()
				charge, order := fakes.Effect{Fake: "payments", Kind: "charge"}, fakes.Effect{Fake: "orders-file", Kind: "order", Observed: true}
				seq := b.intent(plain, opCharge)
				b.try(seq, ok(201, "created", "ord_1"), charge, order).try(seq, ok(201, "noop", "ord_1"))
				for k := 0; k < 4; k++ {
					i := b.intent(record.RoleDistinct, opCharge)
					if k%2 == 0 {
						b.try(i, ok(201, "created", fmt.Sprint("ord_", k+2)), charge, order)
					} else {
						b.try(i, ok(201, "created", fmt.Sprint("ord_", k+2)), charge)
					}
				}
				return b.done()
			}(),
			pass: []string{checks.CheckConcurrentDistinct},
		},
		{
			why: "three of four distinct intents answered \"created ord_N\" with no ord_N in the target's own data, where the call one at a time's order is the one its reply named: lost, though most were",
			rec: func() *record.Record {
				b := newRec()
				charge := fakes.Effect{Fake: "payments", Kind: "charge"}
				order := func(id string) fakes.Effect {
					return fakes.Effect{Fake: "orders-file", Kind: "order", ID: id, Observed: true}
				}
				seq := b.intent(plain, opCharge)
				b.try(seq, ok(201, "created", "ord_1"), charge, order("ord_1")).try(seq, ok(201, "noop", "ord_1"))
				for k := 0; k < 4; k++ {
					i := b.intent(record.RoleDistinct, opCharge)
					id := fmt.Sprint("ord_", k+2)
					if k == 0 {
						b.try(i, ok(201, "created", id), charge, order(id))
					} else {
						b.try(i, ok(201, "created", id), charge)
					}
				}
				return b.done()
			}(),
			fail: map[string][]record.Severity{checks.CheckConcurrentDistinct: {critical}},
			msgs: map[string][]string{checks.CheckConcurrentDistinct: {"charge: 3 of 4 distinct intents sent at once were acknowledged but left no effect, or not the effect their reply named (" + markerOf(3) + ": no orders-file order; " + markerOf(4) + ": no orders-file order; " + markerOf(5) + ": no orders-file order)"}},
		},
		{
			why: "an email sent for the call one at a time and for one of four distinct intents: an effect some inputs make, not expected of every call",
			rec: func() *record.Record {
				b := newRec()
				charge, email := fakes.Effect{Fake: "payments", Kind: "charge"}, fakes.Effect{Fake: "email", Kind: "message"}
				seq := b.intent(plain, opCharge)
				b.try(seq, ok(201, "created", "ord_1"), charge, email).try(seq, ok(201, "noop", "ord_1"))
				for k := 0; k < 4; k++ {
					i := b.intent(record.RoleDistinct, opCharge)
					if k == 0 {
						b.try(i, ok(201, "created", fmt.Sprint("ord_", k+2)), charge, email)
					} else {
						b.try(i, ok(201, "created", fmt.Sprint("ord_", k+2)), charge)
					}
				}
				return b.done()
			}(),
			pass: []string{checks.CheckConcurrentDistinct},
		},
		{
			why: "a charge without an order, but no call one at a time to say that an order is made: nothing to judge it by",
			rec: func() *record.Record {
				b := newRec()
				for k := 0; k < 4; k++ {
					i := b.intent(record.RoleDistinct, opCharge)
					b.try(i, ok(201, "created", fmt.Sprint("ord_", k+2)), fakes.Effect{Fake: "payments", Kind: "charge"})
				}
				return b.done()
			}(),
			pass: []string{checks.CheckConcurrentDistinct},
		},
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
