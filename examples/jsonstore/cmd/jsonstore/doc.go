// Command jsonstore runs the reference JSON-file store tool; see package
// github.com/idemcheck/idemcheck/examples/jsonstore for its profiles.
//
// Usage:
//
//	jsonstore --profile rewrite|locked --file PATH put --note TEXT --amount N --idempotency-key K
package main
