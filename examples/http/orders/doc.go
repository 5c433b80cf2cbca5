// Command orders runs the reference orders service, which keeps its
// orders in its own database; see package
// github.com/idemcheck/idemcheck/examples/orders for its profiles.
//
// Usage:
//
//	orders --profile correct|no-unique|check-then-insert --db postgres://…|sqlite:PATH [--listen 127.0.0.1:0]
package main
