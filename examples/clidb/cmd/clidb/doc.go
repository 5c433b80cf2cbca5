// Command clidb runs the reference expense-logging tool that keeps its
// expenses in its own database; see package
// github.com/idemcheck/idemcheck/examples/clidb for its profiles.
//
// Usage:
//
//	clidb --profile correct|check-then-insert --db postgres://…|sqlite:PATH add-expense --amount N --memo TEXT --idempotency-key K
package main
