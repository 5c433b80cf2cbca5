// Package harness is idemcheck's core: the model of a run (targets,
// operations, intents, attempts, outcomes, the history and the ledger), the
// runner that drives a target through probes under faults, the checks that
// turn what happened into findings, and the rubric that scores a target 0–3.
//
// An intent is one logical request meant to happen exactly once; each try at
// it is an [Attempt], with the same idempotency key, perhaps under a fault,
// whose [Outcome] is ok, fail or info (unknown). Each [Intent] carries a
// unique marker that the target passes to its downstream calls, so the fakes
// attribute every side effect (an effect in the ledger) to the intent that
// caused it.
//
// One interpreter (interpret.go) runs every intent: the fixed probes the
// checks declare, lists of [Step], and the trials the scenarios package
// generates, which are compiled into such lists; so a key reused, a fault,
// a retry, a restart or a pause means one thing wherever it comes from.
// The probes run on an instance of the target of their own; the trials
// share another (trialhost.go), or, when every start of the target is its
// own ([Spec.Isolated]), one per trial worker, each running its share of
// the trials in order, and those start while the probes' last late
// retries wait.
//
// Programs call [Verify] (or [Check] from a test) with one [Spec] per
// target; adapters (targets/http, targets/cli, …) implement [Target] and
// say what the target can do in [TargetInfo.Capabilities]. The checks are
// values of type [Invariant], one per check_*.go file, listed by [Checks];
// each declares its rubric level, the probes it needs and how it judges a
// [Record] (see CREATING_CHECKS.md). A Record (one target's history plus
// ledger) is the single record of a run: it is what checks read, what
// [Result.WriteJSON] saves as result.json, and what [ReadResult] and
// [Merge] read back to re-score.
package harness
