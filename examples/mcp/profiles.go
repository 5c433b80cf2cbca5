package mcp

import "fmt"

// Profile is one reference server: how it guards retries, what its
// annotations claim, and the score it is built to get.
type Profile struct {
	Name string
	// Score is the rubric score the server is built for.
	Score int
	// Flaw is its planted flaw, "" for the correct one.
	Flaw string
	// HTTP is true when the demo serves it over streamable HTTP (else
	// stdio).
	HTTP bool
	// Failing are the checks its flaw makes fail (with the default
	// faults), sorted.
	Failing []string

	keyArg, dryRun, effect, annotate bool
	createIdempotent                 bool // the idempotentHint create_payment claims
	email                            bool // it has send_receipt when given an email API
	lookupCharges                    bool
	guard                            string // durable, session, none
	errorAfterCharge                 bool   // a first charge is answered isError
}

// Profiles lists the reference servers, in demo order.
var Profiles = []Profile{
	{Name: "correct", Score: 3, keyArg: true, dryRun: true, effect: true, annotate: true, createIdempotent: true, guard: "durable", email: true},
	{Name: "correct-http", Score: 3, HTTP: true, keyArg: true, dryRun: true, effect: true, annotate: true, createIdempotent: true, guard: "durable", email: true},
	{
		Name: "session-cache", Score: 0, HTTP: true, keyArg: true, dryRun: true, effect: true, annotate: true, guard: "session",
		Flaw:    "remembers keys in the MCP session and sends no key downstream: a retry on a new session charges again",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch", "key.required", "retry.after-fault"},
	},
	{
		Name: "idempotent-liar", Score: 0, effect: true, annotate: true, createIdempotent: true, guard: "none",
		Flaw:    "annotated idempotentHint: true, takes no key and charges on every call",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "dryrun", "mcp.idempotent-hint", "retry.after-fault", "retry.late", "retry.sequential"},
	},
	{
		Name: "readonly-liar", Score: 0, HTTP: true, keyArg: true, dryRun: true, effect: true, annotate: true, createIdempotent: true, guard: "durable", lookupCharges: true,
		Flaw:    "lookup_payment, annotated readOnlyHint: true, charges a verification fee",
		Failing: []string{"mcp.readonly-hint", "safe.readonly"},
	},
	{
		Name: "error-after-charge", Score: 1, keyArg: true, dryRun: true, effect: true, annotate: true, createIdempotent: true, guard: "durable", email: true, errorAfterCharge: true,
		Flaw:    "create_payment answers isError \"charge failed: please retry\" after its charge went through; the retry with the same key is answered from payments' replay (one charge)",
		Failing: []string{"reply.honest"},
	},
	{
		Name: "nokey", Score: 0, guard: "none",
		Flaw:    "no key, no dry run, no effect field, no annotations (the key checks do not apply: it takes no key)",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "dryrun", "effect.field", "mcp.annotations", "retry.after-fault", "retry.late", "retry.sequential"},
	},
}

// Describe returns the profile called name.
func Describe(name string) (Profile, error) {
	for _, p := range Profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("unknown profile %q", name)
}

// Annotated reports whether the server's tools carry annotations.
func (p Profile) Annotated() bool { return p.annotate }

// Email reports whether the server sends receipts through the email API
// (send_receipt) when given one (--email).
func (p Profile) Email() bool { return p.email }
