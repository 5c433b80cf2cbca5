package faults

import (
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/deps"
)

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

// A code either protocol could answer with: a SQLSTATE (five digits or
// capital letters) or a Redis error prefix (capital letters).
var (
	sqlstateRE    = regexp.MustCompile(`^[0-9A-Z]{5}$`)
	redisPrefixRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// Validate refuses a code that no database protocol answers with, and a
// message that spans lines: such a fault would never act, and the check
// it serves would pass without being examined.
func (f *DepError) Validate() error {
	if f.Code != "" && !sqlstateRE.MatchString(f.Code) && !redisPrefixRE.MatchString(f.Code) {
		return invalid("code", "%q is neither a SQLSTATE (five digits or capital letters, such as 40001 or 57P01) nor a Redis error prefix (capital letters, such as ERR, LOADING or BUSY)", f.Code)
	}
	if strings.ContainsAny(f.Message, "\r\n") {
		return invalid("message", "spans lines: an error's message is one line")
	}
	return nil
}
