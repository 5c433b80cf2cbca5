// Package webhooks is a fake webhook receiver (a sink): a real HTTP server
// on loopback that accepts the webhooks a target sends and records each
// delivery in a fakes.Ledger (Fake "webhooks", Kind "delivery"), so that
// idemcheck can count how many webhooks a target really sent for an intent.
//
// Point the target's outgoing webhook URL at URL()+"/hooks/anything". A
// delivery is attributed to every marker found anywhere in the request
// (URL, headers, body).
//
// The *Server type implements fakes.Fake.
//
// # API
//
//	POST   /hooks/{path...}        receive a webhook; 200 {"received":true,"id":"dlv_000001"}
//
// Anything else gets 404 {"error":"…"}, the control paths included. Bodies are limited to [MaxBodyBytes]
// (413 beyond). [Delivery] ids are sequential per server (dlv_000001, …), so
// that runs are deterministic. A delivery is recorded in the ledger before
// the reply is written: that is the "after effect" fault point.
//
// # Control API
//
// Only with Options.ControlAddr, on a listener of its own (ControlURL),
// never at the address a sender is given, so that it cannot disarm the
// faults armed for it:
//
//	GET    /_idemcheck/deliveries       every delivery, oldest first, as JSON
//	GET    /_idemcheck/ledger           the ledger, as a JSON array of fakes.Effect
//	POST   /_idemcheck/rules            arm the fakes.Rule in the JSON body; 204
//	DELETE /_idemcheck/rules            disarm every rule; 204
//	GET    /_idemcheck/fired?marker=M   {"marker":M,"fired":N}
//
// # De-duplication
//
// A receiver that de-duplicates is the common, well-behaved case; one that
// does not shows whether the sender itself sends once. Unless
// Options.IgnoreIdempotencyKeys is set, a delivery carrying the key header
// (Options.KeyHeader, default Idempotency-Key; Standard Webhooks senders
// use webhook-id) is de-duplicated as the payments fake does:
//
//   - the first delivery with a key claims it, atomically; another delivery
//     with the key while it is in flight gets 409;
//   - once recorded, a delivery with the key and the same path and body gets
//     the first reply again with Idempotent-Replayed: true, and is not
//     recorded (headers such as a signature timestamp may differ);
//   - the key with another path or body gets 422;
//   - a delivery that fails before it is recorded releases the key.
//
// A delivery without the key header is always recorded.
//
// # Downstream faults
//
// Each delivery consumes the first armed fakes.Rule matching its markers:
// FailBefore (503, nothing recorded), FailAfter (recorded, then 503),
// ResetAfter (recorded, then the connection is reset), Delay, Hang (held
// unrecorded until the sender gives up), HangAfter (recorded, then held)
// and Pass (with Rule.OnMatch: a fault point that changes nothing).
package webhooks
