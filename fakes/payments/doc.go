// Package payments is a fake Stripe-like payments API: a real HTTP server on
// loopback that makes pretend charges and records each one in a
// fakes.Ledger, so that idemcheck can count how many charges a target really
// caused.
//
// # How the harness uses it
//
// The harness starts a [Server] ([New], or [Start] in tests), points the target
// at URL() instead of the real provider, sends the target requests that
// carry intent markers (idem-0123456789abcdef), injects faults, and then
// reads Ledger() to check that every intent was charged at most once. A
// charge is attributed to every marker found anywhere in the request that
// caused it: URL, headers or body, so the target may put the marker
// wherever it forwards caller data (description, metadata, a header).
// Downstream faults are armed with Arm, and Fired says whether the rules
// armed for a marker acted. When the fake runs in its own process
// (idemcheck fakes), the control API below does the same over HTTP, on a
// listener of its own (Options.ControlAddr).
//
// The *Server type implements fakes.Fake.
//
// # API
//
//	POST   /v1/charges          make a charge
//	GET    /v1/charges          list charges, newest first (customer=, limit= 1..100, default 10)
//	GET    /v1/charges/{id}     one charge, or 404
//
// Anything else gets 404, the control paths (/_idemcheck/…) included. Errors are Stripe-shaped:
// {"error":{"type":"invalid_request_error","message":"..."}}. Request
// bodies are limited to [MaxBodyBytes].
//
// POST /v1/charges takes form-encoded parameters, as Stripe does (amount,
// currency, customer, description, metadata[key]=value), or the same as a
// JSON object when Content-Type is application/json. amount is required and
// must be a positive integer; currency defaults to usd; other parameters
// are accepted and ignored. It answers 200 with the charge object. [Charge]
// ids are sequential per server (ch_000001, ch_000002, …) so that runs are
// deterministic.
//
// The charge is recorded in the ledger before the reply is written: ledger
// observers run at the moment the charge has happened and the target does
// not know it yet, which is where the harness injects "after effect"
// faults.
//
// # Control API
//
// Only with Options.ControlAddr, and only there (ControlURL), never at the
// address a target is given, so that a target cannot disarm the faults
// armed for it:
//
//	GET    /_idemcheck/ledger           the ledger, as a JSON array of fakes.Effect
//	POST   /_idemcheck/rules            arm the fakes.Rule in the JSON body; 204
//	DELETE /_idemcheck/rules            disarm every rule; 204
//	GET    /_idemcheck/fired?marker=M   {"marker":M,"fired":N}: how many requests the rules armed for M acted on
//
// # Idempotency
//
// Unless Options.IgnoreIdempotencyKeys is set, a POST with an
// Idempotency-Key header behaves as at Stripe:
//
//   - The first request claims the key, atomically. While it is in flight,
//     another request with the key gets 409 idempotency_error.
//   - Once it has charged, a request with the key and the same parameters
//     gets the stored status and body again, byte for byte, with the header
//     Idempotent-Replayed: true, and no new charge.
//   - A request with the key and different parameters gets 400
//     idempotency_error. Parameters are compared in canonical form, all of
//     them, so the same charge sent as form or as JSON matches.
//   - If the request fails before charging (bad parameters, a FailBefore
//     fault) the key is released, not stored, and a retry may charge.
//
// Keys never expire while the server runs. Note that Go's http.Transport
// silently resends a request that carries an Idempotency-Key header when a
// reused keep-alive connection fails before any reply, so a target written
// in Go may retry without knowing it, and the fake then sees a replay.
//
// # Downstream faults
//
// Each POST /v1/charges first looks for markers, then consumes the first
// armed fakes.Rule that matches them, whatever the request's outcome:
//
//   - FailBefore: 503 api_error "injected: service unavailable"; nothing is
//     charged and no key is claimed.
//   - FailAfter: the request is handled normally (the charge is made and
//     recorded, its reply stored against the key), then answered with the
//     same 503 as FailBefore, so that the target cannot tell the two apart.
//     A retry with the key gets the stored charge.
//   - ResetAfter: handled normally, then the connection is closed with a
//     TCP reset and no reply.
//   - Delay: waits Rule.Delay, then handles the request normally. If the
//     client gives up first nothing is charged; if the server is closing it
//     answers 503 without charging, so that Close need not wait.
package payments
