// Package webhooks is idemcheck's reference webhook handler: a payments
// integration that receives signed "invoice.due" events from a provider
// and, for each event, charges the customer on the payments fake. The
// provider (in tests, idemcheck's webhook adapter) delivers at least once,
// so the handler must de-duplicate by event id; each profile does that its
// own way, and all but one plant a known flaw of webhook de-duplication.
//
// # API
//
//	POST /webhooks/payments   a signed event; 200 {"received":true[,"duplicate":true]} once handled
//	GET  /healthz             200
//
// An event is JSON: {"id":"evt_…","type":"invoice.due","created":UNIX,
// "data":{"customer":"cus_1","amount":1234,"description":"…"}}. For
// "invoice.due" the handler charges amount to customer with description
// (which carries the harness's marker) verbatim. A "ping" is acknowledged
// and does nothing; other types are acknowledged and ignored, as providers
// recommend. The signature is Stripe's scheme in the Idemcheck-Signature
// header: "t=UNIX,v1=HEX", HEX = hex(HMAC-SHA256(secret, "UNIX.BODY")),
// refused when older than five minutes.
//
// Answers: 401 for a missing, malformed, wrong or stale signature (nothing
// is looked at or remembered); 400 for a body that is not such an event
// (an empty id included); 409 while another delivery of the event is being
// processed; 502 when the charge failed (the provider redelivers); 503 when
// the state directory cannot be written; 200 once the event was processed
// or found already processed.
//
// # Profiles
//
// correct (score 3): the signature is verified first. De-duplication is
// durable, in --state DIR (the harness's {{state_dir}}): an atomic claim
// per event id (a file created with O_EXCL, fsynced) holding a lease (this
// process's boot id and an expiry, default 30s); the event id is passed to
// payments as the Idempotency-Key; only once the charge succeeded is the
// event marked done (a second file, fsynced) and acknowledged. A failed
// charge drops the claim, so the redelivery processes the event. A claim
// whose lease ended (another boot: the process that held it died; or it
// expired) is taken over by the next delivery, which charges again with the
// same key: if the dead process had charged, payments replays that charge.
// So a crash before or after the charge or after the reply, a lost
// acknowledgement, an ambiguous downstream failure, and concurrent
// redeliveries (409 but one) each leave exactly one charge.
//
// mark-seen-first (score 0; the event id registered as seen before
// processing): as correct, but the event is marked done before it is
// processed. If the charge fails (a downstream 503) or the handler crashes
// before charging, the provider's redelivery finds the event "seen" and is
// acknowledged: the event is lost, an acknowledged intent with no effect
// (exactly-once).
//
// lru-memory (score 0; an in-memory ordered map of seen ids, max
// --lru-size, default 10000, oldest evicted first): an atomic in-memory
// claim (409 while in flight), marked done after the charge, and no key
// passed downstream. Sequential and concurrent redeliveries are fine; after
// a restart the memory is empty, so a redelivery after a crash after the
// charge (or after the reply) charges again (crash.recovery), and so does
// one after an ambiguous downstream failure (downstream.propagation), and
// one after a sender that gave up mid-delivery: the handler's charge is
// cancelled with the request, the claim released although the charge
// landed, and the redelivery charges again (retry.after-fault under
// client-disconnect). An
// event redelivered after more than --lru-size others was evicted and is
// charged again too.
//
// no-signature (score 3 until the harness runs webhook.signature; built to
// fail it): correct in every way but it never checks the signature, so
// anyone who can reach it can make it charge.
//
// high-water-mark (score 3: no harness check sees it yet; built to fail a
// webhook.out-of-order check): de-duplicates by the event's created time
// instead of its id: an event not newer than the newest one processed is
// acknowledged as a duplicate. Redeliveries are skipped, and durable, and
// the key goes downstream; but when a later event overtakes an earlier one
// (out-of-order delivery) the earlier event is lost. Events are processed
// one at a time (a mutex), so concurrent redeliveries wait rather than race.
//
// # Running
//
// Serve runs the handler in-process; Main is the command line
// (idemcheck __example webhooks, and the programs under cmd/). Flags:
// --profile, --listen (loopback only), --payments (default $PAYMENTS_URL),
// --secret (default $WEBHOOK_SECRET), --state, --lease, --lru-size.
package webhooks
