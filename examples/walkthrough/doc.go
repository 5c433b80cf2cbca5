// Command pay is a payment service small enough to read in one go: POST
// /charges takes {"amount":1200,"note":"…"} with an Idempotency-Key header
// and charges the amount through a Stripe-like payments API. It is safe to
// retry because it hands the caller's key on to the payments API, which
// charges once per key and replays its first reply to any retry.
//
// Usage:
//
//	PAYMENTS_URL=http://127.0.0.1:4242 pay --listen 127.0.0.1:8080
package main
