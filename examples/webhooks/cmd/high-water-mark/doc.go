// Command high-water-mark runs the reference webhook handler with the "high-water-mark"
// profile; see package github.com/idemcheck/idemcheck/examples/webhooks for
// what it is built to show.
//
// Usage:
//
//	high-water-mark --payments http://127.0.0.1:4242 --secret S [--listen 127.0.0.1:0] [--state DIR]
package main
