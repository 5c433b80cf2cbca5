// Command ledger runs the reference ledger API, whose effects only a
// count can attribute; see package
// github.com/idemcheck/idemcheck/examples/ledger for its profiles.
//
// Usage:
//
//	ledger --profile correct|no-fingerprint|key-after-effect --db postgres://…|sqlite:PATH [--listen 127.0.0.1:0]
package main
