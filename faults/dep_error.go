package faults

import "github.com/idemcheck/idemcheck/deps"

// NameDepError is the registered name of DepError.
const NameDepError = "dep-error"

// DepError makes the target's database answer the intent's write with a
// real error of its own protocol: for PostgreSQL an ErrorResponse with
// SQLSTATE Code (default 40001, serialization_failure; 57P01,
// admin_shutdown, also closes the connection), for Redis an error reply
// with prefix Code (default ERR; LOADING, BUSY, …). The write did not
// happen, and the target knows it failed: a correct target answers with a
// failure it does not keep under the key, so that the client's retry with
// the same key, once the database is well, completes the intent. A target
// that stores the failure as the key's reply replays it for good.
type DepError struct {
	dep
	// Code is the error's SQLSTATE or Redis prefix; empty means the
	// protocol's default.
	Code string `json:"code,omitempty"`
	// Message is the error's text; empty means the database's own.
	Message string `json:"message,omitempty"`
}

// Name implements Fault.
func (*DepError) Name() string { return NameDepError }

// DepRule implements DependencyFault.
func (f *DepError) DepRule(intent string) deps.Rule {
	return deps.Rule{Intent: intent, Action: deps.Fail, Code: f.Code, Message: f.Message}
}
