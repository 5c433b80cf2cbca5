package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// MalformedKeyLength is how long the key of a malformed-key intent is:
// longer than any key store takes (Stripe's limit is 255), still plain
// text every transport carries.
const MalformedKeyLength = 300

var keyMalformed = Invariant{
	ID:       CheckKeyMalformed,
	Property: "a key the target cannot take (too long) is refused as the client's error (4xx), not answered as a server error (5xx)",
	Level:    3,
	Optional: true,
	// A queue consumer has no reply to refuse a key with: what becomes of
	// its event is an ack, whatever the key, so the check could never
	// fail there (and its event would wait out the broker's timeout).
	Applies: func(c record.Capabilities) bool { return c.Keys && !c.Redelivery },
	Probes: func(pc ProbeContext) []Probe {
		if !pc.Op.Mutating {
			return nil
		}
		s := Fresh(record.RoleMalformedKey, pc.Op.Name)
		s.MalformedKey = true
		return []Probe{{Name: "malformed key", Steps: []Step{s}}}
	},
	Skip: func(*record.Record) string { return "no mutating operation was sent a malformed key" },
	Eval: evalKeyMalformed,
}

// evalKeyMalformed reports a malformed key answered with a server error,
// at an operation that served well-formed keys: only the key differed,
// so the target found the key wrong, and said it was its own fault.
func evalKeyMalformed(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	ins := intentsByRole(r, record.RoleMalformedKey)
	served := map[string]bool{}
	for _, in := range intentsByRole(r, record.RolePlain) {
		if in.Key != "" && in.Acknowledged() {
			served[in.Operation] = true
		}
	}
	for _, in := range ins {
		a := in.Attempts[0]
		how := serverError(a)
		if how == "" || a.Fault != "" || !served[in.Operation] {
			continue
		}
		refuse := "400"
		if strings.HasPrefix(a.Error, "isError") {
			refuse = "an isError result with status 400" // an MCP tool's
		}
		fs = append(fs, record.Finding{
			Check: CheckKeyMalformed, Severity: record.Major, Operation: in.Operation,
			Message: fmt.Sprintf("%s: a malformed idempotency key (%d characters) was answered %s, while well-formed keys were served: a malformed key is the client's error; refuse it with %s, saying what a key must look like. A server error tells the caller to retry the same request, which can never succeed%s",
				in.Operation, len(in.Key), how, refuse, gatewayHint(a)),
			Evidence: evidence(r, in),
		})
	}
	return fs, len(ins) > 0
}

// gatewayHint is what a gateway error (502, 503, 504) adds to the
// finding: the target blamed a call it made, and an API it passed the key
// on to may have refused the key (the fakes, as Stripe does, take keys of
// up to 255 characters) — a refusal the target must not pass on as its
// own failure.
func gatewayHint(a record.Attempt) string {
	if a.Status < 502 || a.Status > 504 {
		return ""
	}
	return fmt.Sprintf(". A %d blames a call the target made: if it passes the key on, the API it calls may have refused it (the fakes, as Stripe, take keys of at most 255 characters); check the key's length before the call, or answer that refusal as the client's error", a.Status)
}

// serverError says how a reply was a server error the target itself
// answered ("HTTP 500", "JSON-RPC error -32603"), or "".
func serverError(a record.Attempt) string {
	switch {
	case a.ExitSignal != "" || a.Withheld || !a.Forwarded:
		return ""
	case strings.HasPrefix(a.Error, "JSON-RPC error -32603"):
		return "JSON-RPC error -32603 (internal error)"
	case a.Status >= 500 && a.Status <= 599 && strings.HasPrefix(a.Error, "isError"):
		// An MCP tool's result, whose status says what HTTP would.
		return fmt.Sprintf("an isError result with status %d", a.Status)
	case a.Status >= 500 && a.Status <= 599 && a.Error == "":
		return fmt.Sprintf("HTTP %d", a.Status)
	}
	return ""
}
