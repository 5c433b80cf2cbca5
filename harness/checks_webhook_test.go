package harness_test

import (
	"github.com/idemcheck/idemcheck/harness"
)

// hook makes a hand-built record a webhook handler's: it signs and
// reorders deliveries, and has none of the conventions of a keyed API, as
// the webhook adapter declares.
func hook(r *harness.Record) *harness.Record {
	r.Target.Kind = "webhook"
	r.Target.Capabilities = &harness.Capabilities{Signatures: true, Reorder: true, Burst: true}
	return r
}

// forged is the attempt of a delivery sent with a wrong signature.
func forged(a harness.Attempt) harness.Attempt {
	a.Fault = "bad-signature"
	return a
}

func webhookSignatureCases() []checkCase {
	return []checkCase{
		{
			why: "a forged delivery processed (critical), one acknowledged without effect (major), one answered 500 (major), and a genuine delivery eaten by its forgery (critical)",
			rec: func() *harness.Record {
				b := newRec()
				b.try(b.intent(harness.RoleBadSignature, opCharge), forged(ok(200, "", "")), mine())
				b.try(b.intent(harness.RoleBadSignature, opCharge), forged(ok(200, "", "")))
				b.try(b.intent(harness.RoleBadSignature, opCharge), forged(unknown(500)))
				f := b.intent(harness.RoleBadSignature, opCharge)
				b.try(f, forged(failed(401)))
				b.try(b.intent(harness.RoleAfterBadSignature, opCharge, f), ok(200, "", "evt_1"))
				return hook(b.done())
			}(),
			fail: map[string][]harness.Severity{harness.CheckWebhookSignature: {critical, major, major, critical}},
			msgs: map[string][]string{harness.CheckWebhookSignature: {"bad signature was processed", "was acknowledged (200)", "answered 500 instead of a 4xx", "the forgery consumed the event id"}},
		},
		{
			why: "a forged delivery refused with 401, then the genuine one processed once",
			rec: func() *harness.Record {
				b := newRec()
				f := b.intent(harness.RoleBadSignature, opCharge)
				b.try(f, forged(failed(401)))
				b.try(b.intent(harness.RoleAfterBadSignature, opCharge, f), ok(200, "", "evt_1"), mine())
				return hook(b.done())
			}(),
			pass: []string{harness.CheckWebhookSignature},
		},
		{
			why:  "no forged delivery was sent",
			rec:  sequentialOK(),
			skip: []string{harness.CheckWebhookSignature, harness.CheckWebhookOrder},
		},
	}
}

func webhookOrderCases() []checkCase {
	return []checkCase{
		{
			why: "events delivered newest first: one overtaken and acknowledged unprocessed, one processed twice",
			rec: func() *harness.Record {
				b := newRec()
				b.try(b.intent(harness.RoleOutOfOrder, opCharge), ok(200, "", "evt_3"), mine())
				b.try(b.intent(harness.RoleOutOfOrder, opCharge), ok(200, "", "evt_2"))
				b.try(b.intent(harness.RoleOutOfOrder, opCharge), ok(200, "", "evt_1"), mine(), mine())
				return hook(b.done())
			}(),
			fail: map[string][]harness.Severity{harness.CheckWebhookOrder: {critical, critical}},
			msgs: map[string][]string{harness.CheckWebhookOrder: {"overtaken by a later event", "processed 2 times"}},
		},
		{
			why: "each event processed once, whatever the order",
			rec: func() *harness.Record {
				b := newRec()
				for i := 0; i < 3; i++ {
					b.try(b.intent(harness.RoleOutOfOrder, opCharge), ok(200, "", ""), mine())
				}
				return hook(b.done())
			}(),
			pass: []string{harness.CheckWebhookOrder},
		},
		{
			why:  "no event was reordered",
			rec:  sequentialOK(),
			skip: []string{harness.CheckWebhookOrder},
		},
	}
}
