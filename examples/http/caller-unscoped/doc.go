// Command caller-unscoped runs the reference shop with the "caller-unscoped" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	caller-unscoped --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR]
package main
