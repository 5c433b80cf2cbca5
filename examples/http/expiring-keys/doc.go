// Command expiring-keys runs the reference shop with the "expiring-keys" idempotency profile:
// a key store that forgets a key --ttl after its first use (1s by
// default); see package github.com/idemcheck/idemcheck/examples/shop for
// what it is built to show.
//
// Usage:
//
//	expiring-keys --payments http://127.0.0.1:4242 [--ttl 1s] [--listen 127.0.0.1:0] [--state DIR] [--email URL]
package main
