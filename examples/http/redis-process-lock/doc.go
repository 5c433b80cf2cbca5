// Command redis-process-lock runs the reference shop with the "redis-process-lock" idempotency profile;
// see package github.com/idemcheck/idemcheck/examples/shop for what it is
// built to show.
//
// Usage:
//
//	redis-process-lock --payments http://127.0.0.1:4242 [--listen 127.0.0.1:0] [--state DIR] [--redis 127.0.0.1:6379] [--instance N]
package main
