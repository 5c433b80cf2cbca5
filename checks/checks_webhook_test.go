package checks_test

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// hook makes a hand-built record a webhook handler's: it signs and
// reorders deliveries, and has none of the conventions of a keyed API, as
// the webhook adapter declares.
func hook(r *record.Record) *record.Record {
	r.Target.Kind = "webhook"
	r.Target.Capabilities = &record.Capabilities{Signatures: true, Reorder: true, Burst: true}
	return r
}

// forged is the attempt of a delivery sent with a wrong signature.
func forged(a record.Attempt) record.Attempt {
	a.Fault = "bad-signature"
	return a
}

func webhookSignatureCases() []checkCase {
	return []checkCase{
		{
			why: "a forged delivery processed (critical), one acknowledged without effect (major), one answered 500 (major), and a genuine delivery eaten by its forgery (critical)",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(record.RoleBadSignature, opCharge), forged(ok(200, "", "")), mine())
				b.try(b.intent(record.RoleBadSignature, opCharge), forged(ok(200, "", "")))
				b.try(b.intent(record.RoleBadSignature, opCharge), forged(unknown(500)))
				f := b.intent(record.RoleBadSignature, opCharge)
				b.try(f, forged(failed(401)))
				b.try(b.intent(record.RoleAfterBadSignature, opCharge, f), ok(200, "", "evt_1"))
				return hook(b.done())
			}(),
			fail: map[string][]record.Severity{checks.CheckWebhookSignature: {critical, major, major, critical}},
			msgs: map[string][]string{checks.CheckWebhookSignature: {"bad signature was processed", "was acknowledged (200)", "answered 500 instead of a 4xx", "the forgery consumed the event id"}},
		},
		{
			why: "a forged delivery refused with 401, then the genuine one processed once",
			rec: func() *record.Record {
				b := newRec()
				f := b.intent(record.RoleBadSignature, opCharge)
				b.try(f, forged(failed(401)))
				b.try(b.intent(record.RoleAfterBadSignature, opCharge, f), ok(200, "", "evt_1"), mine())
				return hook(b.done())
			}(),
			pass: []string{checks.CheckWebhookSignature},
		},
		{
			why:  "no forged delivery was sent",
			rec:  sequentialOK(),
			skip: []string{checks.CheckWebhookSignature, checks.CheckWebhookOrder},
		},
	}
}

func webhookOrderCases() []checkCase {
	return []checkCase{
		{
			why: "events delivered newest first: one overtaken and acknowledged unprocessed, one processed twice",
			rec: func() *record.Record {
				b := newRec()
				b.try(b.intent(record.RoleOutOfOrder, opCharge), ok(200, "", "evt_3"), mine())
				b.try(b.intent(record.RoleOutOfOrder, opCharge), ok(200, "", "evt_2"))
				b.try(b.intent(record.RoleOutOfOrder, opCharge), ok(200, "", "evt_1"), mine(), mine())
				return hook(b.done())
			}(),
			fail: map[string][]record.Severity{checks.CheckWebhookOrder: {critical, critical}},
			msgs: map[string][]string{checks.CheckWebhookOrder: {"overtaken by a later event", "processed 2 times"}},
		},
		{
			why: "each event processed once, whatever the order",
			rec: func() *record.Record {
				b := newRec()
				for i := 0; i < 3; i++ {
					b.try(b.intent(record.RoleOutOfOrder, opCharge), ok(200, "", ""), mine())
				}
				return hook(b.done())
			}(),
			pass: []string{checks.CheckWebhookOrder},
		},
		{
			why:  "no event was reordered",
			rec:  sequentialOK(),
			skip: []string{checks.CheckWebhookOrder},
		},
	}
}
