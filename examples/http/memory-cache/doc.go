// Command memory-cache runs the reference shop with the "memory-cache" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	memory-cache --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR] [--email URL]
package main
