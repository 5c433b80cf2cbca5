// Package httpfake holds what the HTTP downstream fakes (fakes/email's send
// API, fakes/webhooks) share: a loopback-only server with a Close that waits
// for in-flight requests, Stripe-style idempotency keys (claim, replay,
// 409 in flight, release on failure), the dispatch of fakes.Rule actions
// around one request, marker scanning of a whole request, and the control
// API (Control), served on a listener of its own and never on the address
// a target is given.
//
// fakes/payments predates it and keeps its own copy; new fakes use this.
package httpfake
