// Command mark-seen-first runs the reference webhook handler with the "mark-seen-first"
// profile; see package github.com/idemcheck/idemcheck/examples/webhooks for
// what it is built to show.
//
// Usage:
//
//	mark-seen-first --payments http://127.0.0.1:4242 --secret S [--listen 127.0.0.1:0] [--state DIR]
package main
