// Command check-then-act runs the reference shop with the "check-then-act" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	check-then-act --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR] [--window 50us]
package main
