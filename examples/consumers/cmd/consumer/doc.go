// Command consumer runs idemcheck's reference message-queue consumer; see
// package github.com/idemcheck/idemcheck/examples/consumers for its
// profiles.
//
// Usage:
//
//	consumer --profile correct --broker nats --url nats://127.0.0.1:4222 --payments http://127.0.0.1:4242 --state DIR
package main
