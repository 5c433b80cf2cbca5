// Command lru-memory runs the reference webhook handler with the "lru-memory"
// profile; see package github.com/idemcheck/idemcheck/examples/webhooks for
// what it is built to show.
//
// Usage:
//
//	lru-memory --payments http://127.0.0.1:4242 --secret S [--listen 127.0.0.1:0] [--state DIR]
package main
