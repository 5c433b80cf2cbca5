// Command uuid-keys runs the reference shop with the "uuid-keys" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	uuid-keys --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR]
package main
