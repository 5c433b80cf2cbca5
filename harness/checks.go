package harness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
)

// The stable ids of the checks.
const (
	CheckRetrySequential      = "retry.sequential"
	CheckRetryAfterFault      = "retry.after-fault"
	CheckConcurrentDuplicates = "concurrent.duplicates"
	CheckCrashRecovery        = "crash.recovery"
	CheckDownstream           = "downstream.propagation"
	CheckKeyMismatch          = "key.mismatch"
	CheckKeyRequired          = "key.required"
	CheckKeyDistinct          = "key.distinct"
	CheckReplayConsistent     = "replay.consistent"
	CheckEffectField          = "effect.field"
	CheckDryRun               = "dryrun"
	CheckSafeReadOnly         = "safe.readonly"
	CheckExactlyOnce          = "exactly-once"
	CheckWebhookSignature     = "webhook.signature"
	CheckWebhookOrder         = "webhook.out-of-order"
)

// Invariant is a check: a property evaluated over a Record, with a stable id.
type Invariant struct {
	// ID is stable across versions; reports and configuration use it.
	ID string
	// Property says in one sentence what must hold.
	Property string
	// Eval judges the record. It returns every violation it sees, not only
	// the first, and applicable=false when nothing in the record concerns it.
	Eval func(r *Record) (findings []Finding, applicable bool)
}

// Checks returns the checks this version implements, in report order.
func Checks() []Invariant {
	return []Invariant{
		{CheckRetrySequential, "the same key sent twice causes one effect, and the second reply is a successful replay", evalRetrySequential},
		{CheckRetryAfterFault, "after each fault, retrying with the same key until success leaves exactly one effect", evalRetryAfterFault},
		{CheckConcurrentDuplicates, "a burst of same-key requests released together leaves one effect; the others get the replay or 409", evalConcurrentDuplicates},
		{CheckCrashRecovery, "after a crash and restart, retries complete the intent exactly once and are not stuck in progress", evalCrashRecovery},
		{CheckDownstream, "when the downstream call fails ambiguously and is retried, the downstream sees one effect (the key was passed on)", evalDownstream},
		{CheckKeyMismatch, "the same key with a different payload is rejected and causes no effect", evalKeyMismatch},
		{CheckKeyRequired, "a mutating call without a key is refused, or de-duplicated by the framework", evalKeyRequired},
		{CheckKeyDistinct, "two intents with distinct keys and identical inputs cause two effects", evalKeyDistinct},
		{CheckReplayConsistent, "every replay returns the first reply's status and identity", evalReplayConsistent},
		{CheckEffectField, "every reply carries an effect: created/updated/deleted when it acted, noop when it replayed", evalEffectField},
		{CheckDryRun, "every mutating operation has a dry run that causes no effect, says would_*, and does not consume the key", evalDryRun},
		{CheckSafeReadOnly, "safe operations cause no effects", evalSafeReadOnly},
		{CheckExactlyOnce, "no acknowledged intent is without its effect, and no single call causes two", evalExactlyOnce},
		{CheckWebhookSignature, "a delivery with a bad signature is refused (4xx), causes no effect, and does not consume the event id", evalWebhookSignature},
		{CheckWebhookOrder, "events delivered in another order than they were made are each processed exactly once", evalWebhookOrder},
	}
}

// KnownCheck reports whether id names a check of this version.
func KnownCheck(id string) bool {
	for _, c := range Checks() {
		if c.ID == id {
			return true
		}
	}
	return false
}

// Evaluate runs the enabled checks of rec (all of them when rec.Checks is
// empty) and returns their verdicts and findings.
func Evaluate(rec *Record) ([]CheckResult, []Finding) {
	enabled := map[string]bool{}
	for _, id := range rec.Checks {
		enabled[id] = true
	}
	var results []CheckResult
	var findings []Finding
	na := map[string]bool{}
	for _, id := range rec.Target.NotApplicable {
		na[id] = true
	}
	for _, c := range Checks() {
		if na[c.ID] {
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: NotApplicableNote(rec.Target.Kind)})
			continue
		}
		if len(enabled) > 0 && !enabled[c.ID] {
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: "disabled"})
			continue
		}
		fs, applicable := c.Eval(rec)
		switch {
		case len(fs) > 0:
			results = append(results, CheckResult{ID: c.ID, Status: StatusFail, Note: fmt.Sprintf("%d finding(s)", len(fs))})
			findings = append(findings, fs...)
		case !applicable:
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: skipNote(c.ID, rec)})
		default:
			results = append(results, CheckResult{ID: c.ID, Status: StatusPass})
		}
	}
	return results, findings
}

// NotApplicableNote is the note of a check that does not apply to a kind.
func NotApplicableNote(kind string) string {
	return "not applicable to " + kind + " targets"
}

func skipNote(id string, rec *Record) string {
	switch id {
	case CheckKeyMismatch:
		return "no mutating operation has inputs to vary"
	case CheckSafeReadOnly:
		return "the target has no safe operation"
	case CheckRetryAfterFault, CheckCrashRecovery, CheckDownstream:
		if len(rec.Unsupported) > 0 {
			return "these faults could not be injected into this target: " + strings.Join(rec.Unsupported, ", ")
		}
		return "no fault of its class was tried"
	case CheckConcurrentDuplicates:
		return "the adapter cannot send bursts"
	}
	return "nothing in the run concerns it"
}

// evidence gathers intents and their effects.
func evidence(r *Record, ins ...*Intent) Evidence {
	var ev Evidence
	seen := map[int64]bool{}
	for _, in := range ins {
		if in == nil {
			continue
		}
		ev.Intents = append(ev.Intents, *in)
		for _, e := range r.EffectsOf(in) {
			if !seen[e.Seq] {
				seen[e.Seq] = true
				ev.Effects = append(ev.Effects, e)
			}
		}
	}
	sort.Slice(ev.Effects, func(i, j int) bool { return ev.Effects[i].Seq < ev.Effects[j].Seq })
	return ev
}

// statuses renders the attempts' statuses, e.g. "503 (lost-response), 200".
func statuses(in *Intent) string {
	parts := make([]string, 0, len(in.Attempts))
	for _, a := range in.Attempts {
		s := fmt.Sprint(a.Status)
		if a.Status == 0 {
			s = string(a.Outcome)
		}
		if a.Fault != "" {
			s += " (" + a.Fault + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func effectIDs(es []fakes.Effect) string {
	ids := make([]string, 0, len(es))
	for _, e := range es {
		ids = append(ids, e.Kind+" "+e.ID)
	}
	return strings.Join(ids, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// intentsByRole returns pointers to the record's intents with the role.
func intentsByRole(r *Record, roles ...Role) []*Intent {
	var out []*Intent
	for i := range r.Intents {
		if len(r.Intents[i].Attempts) == 0 {
			continue // an interrupted run: nothing to judge
		}
		for _, role := range roles {
			if r.Intents[i].Role == role {
				out = append(out, &r.Intents[i])
				break
			}
		}
	}
	return out
}
