// Command correct runs the reference shop with the "correct" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	correct --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR] [--email URL]
package main
