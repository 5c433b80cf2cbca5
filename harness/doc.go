// Package harness is idemcheck's core: the model of a run (targets,
// operations, intents, attempts, outcomes, the history and the ledger), the
// runner that drives a target through probes under faults, the checks that
// turn what happened into findings, and the rubric that scores a target 0–3.
//
// The vocabulary is the one of DESIGN.md: an intent is one logical request
// meant to happen exactly once; each try at it is an attempt, with the same
// idempotency key, perhaps under a fault, whose outcome is ok, fail or info
// (unknown). Each intent carries a unique marker that the target passes to
// its downstream calls, so the fakes attribute every side effect (an Effect
// in the ledger) to the intent that caused it.
//
// Programs call Verify; adapters (targets/http, …) implement Target; the
// checks are values of type Check listed by Checks. A Record (one target's
// history plus ledger) is the single record of a run: it is what checks read,
// and what reports render.
package harness
