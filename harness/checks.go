package harness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/faults"
)

// The stable ids of the checks.
const (
	CheckRetrySequential      = "retry.sequential"
	CheckRetryAfterFault      = "retry.after-fault"
	CheckRetryLate            = "retry.late"
	CheckConcurrentDuplicates = "concurrent.duplicates"
	CheckCrashRecovery        = "crash.recovery"
	CheckDownstream           = "downstream.propagation"
	CheckKeyMismatch          = "key.mismatch"
	CheckKeyRequired          = "key.required"
	CheckKeyDistinct          = "key.distinct"
	CheckKeyScope             = "key.scope"
	CheckReplayConsistent     = "replay.consistent"
	CheckEffectField          = "effect.field"
	CheckDryRun               = "dryrun"
	CheckSafeReadOnly         = "safe.readonly"
	CheckExactlyOnce          = "exactly-once"
	CheckWebhookSignature     = "webhook.signature"
	CheckWebhookOrder         = "webhook.out-of-order"
	CheckMCPReadOnlyHint      = "mcp.readonly-hint"
	CheckMCPIdempotentHint    = "mcp.idempotent-hint"
	CheckMCPAnnotations       = "mcp.annotations"
	CheckIETFDraft            = "ietf.draft"
)

// Invariant is one check, declared whole in its own check_*.go file: its
// stable id, the property it verifies, the rubric level it belongs to, the
// probes it needs, when it applies, why it may have nothing to judge, and
// how it judges a Record. Everything else (the probe plan, the rubric's
// needs, the fault-class table, skip notes) is derived from the registered
// checks; see CREATING_CHECKS.md.
type Invariant struct {
	// ID is stable across versions; reports and configuration use it.
	ID string
	// Property says in one sentence what must hold.
	Property string
	// Level is the rubric level (1–3) whose condition the check is part of.
	Level int
	// Optional checks may be skipped (the target cannot take the faults
	// they need, has no such operation) without holding the score below
	// Level; their findings still count.
	Optional bool
	// Probes returns the probes the check needs against one operation
	// (called for every operation; it returns none for an operation it has
	// nothing to ask of). Probes that several checks declare alike (same
	// name, same operation) run once.
	Probes func(ProbeContext) []Probe
	// Faults are the fault classes whose intents the check judges: it owns
	// the retries of an intent whose fault has one of these classes, and
	// ProbeContext.Faults gives it the faults of these classes to try.
	Faults []faults.Class
	// Applies is the not-applicable rule: false when the target lacks the
	// convention the check verifies. Nil means it always applies.
	Applies func(Capabilities) bool
	// Skip says why the check had nothing to judge in rec; nil means a
	// generic note.
	Skip func(rec *Record) string
	// Eval judges the record. It returns every violation it sees, not only
	// the first, and applicable=false when nothing in the record concerns it.
	Eval func(r *Record) (findings []Finding, applicable bool)
}

// ProbeContext is what a check is told when it plans its probes against one
// operation of a target.
type ProbeContext struct {
	// Op is the operation.
	Op Operation
	// Caps is what the target can do.
	Caps Capabilities
	// Faults are the enabled faults of the check's classes (Invariant.Faults)
	// that the target can take.
	Faults []faults.Fault
	// Burst is how many copies a burst sends; 0 when the target cannot
	// send bursts.
	Burst int
	// Bursts is how many bursts a check that sends them sends per
	// operation, each with a fresh key (at least 1).
	Bursts int
	// Ops are all the target's operations, for a probe that goes from
	// one to another.
	Ops []Operation
	// Late is how many other keys and how long retry.late puts between
	// an intent and its late retry.
	Late LateOptions
}

// applies reports whether the check applies to a target with caps.
func (c Invariant) applies(caps Capabilities) bool {
	return c.Applies == nil || c.Applies(caps)
}

// registry is every check of this version, in report order. A new check
// is declared in its own file and listed here.
var registry []Invariant

func init() {
	registry = []Invariant{
		retrySequential,
		retryAfterFault,
		retryLate,
		concurrentDuplicates,
		crashRecovery,
		downstreamPropagation,
		keyMismatch,
		keyRequired,
		keyDistinct,
		keyScope,
		replayConsistent,
		effectField,
		dryRun,
		safeReadOnly,
		exactlyOnce,
		webhookSignature,
		webhookOrder,
		mcpReadOnlyHint,
		mcpIdempotentHint,
		mcpAnnotations,
		ietfDraft,
	}
}

// Checks returns the checks this version implements, in report order.
func Checks() []Invariant {
	return append([]Invariant(nil), registry...)
}

// KnownCheck reports whether id names a check of this version.
func KnownCheck(id string) bool {
	for _, c := range registry {
		if c.ID == id {
			return true
		}
	}
	return false
}

// faultOwner returns the check that owns intents retried after a fault of
// class c: the registered check that lists c in its Faults, or
// retry.after-fault for a class no check lists.
func faultOwner(c faults.Class) string {
	for _, chk := range registry {
		for _, fc := range chk.Faults {
			if fc == c {
				return chk.ID
			}
		}
	}
	return CheckRetryAfterFault
}

// Evaluate runs the enabled checks of rec (all of them when rec.Checks is
// empty) and returns their verdicts and findings.
func Evaluate(rec *Record) ([]CheckResult, []Finding) {
	return evaluate(registry, rec)
}

func evaluate(checks []Invariant, rec *Record) ([]CheckResult, []Finding) {
	enabled := map[string]bool{}
	for _, id := range rec.Checks {
		enabled[id] = true
	}
	var results []CheckResult
	var findings []Finding
	caps := rec.Target.Caps()
	for _, c := range checks {
		if !c.applies(caps) {
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: NotApplicableNote(rec.Target.Kind)})
			continue
		}
		if len(enabled) > 0 && !enabled[c.ID] {
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: "disabled"})
			continue
		}
		fs, applicable := c.Eval(rec)
		fs = mergeTries(rec, fs)
		switch {
		case len(fs) > 0:
			results = append(results, CheckResult{ID: c.ID, Status: StatusFail, Note: fmt.Sprintf("%d finding(s)", len(fs))})
			findings = append(findings, fs...)
		case !applicable:
			note := "nothing in the run concerns it"
			if c.Skip != nil {
				note = c.Skip(rec)
			}
			results = append(results, CheckResult{ID: c.ID, Status: StatusSkip, Note: note})
		default:
			results = append(results, CheckResult{ID: c.ID, Status: StatusPass})
		}
	}
	return results, findings
}

// notApplicable lists the ids of the checks that do not apply to a target
// with caps.
func notApplicable(checks []Invariant, caps Capabilities) []string {
	var ids []string
	for _, c := range checks {
		if !c.applies(caps) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// NotApplicableNote is the note of a check that does not apply to a kind.
func NotApplicableNote(kind string) string {
	return "not applicable to " + kind + " targets"
}

// faultSkip is the skip note of a check that judges intents retried after
// faults of its classes.
func faultSkip(rec *Record) string {
	if len(rec.Unsupported) > 0 {
		parts := make([]string, len(rec.Unsupported))
		for i, f := range rec.Unsupported {
			parts[i] = f
			if why := rec.UnsupportedWhy[f]; why != "" {
				parts[i] += " (" + why + ")"
			}
		}
		return "these faults could not be injected into this target: " + strings.Join(parts, "; ")
	}
	return "no fault of its class was tried"
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

// keyedRoles are the roles of intents sent, and retried, with a key of
// their own: a plain intent, and a twin (a plain intent whose inputs are
// another's). The retry checks judge them alike: a twin retried after a
// fault that acts twice is as much a duplicate as a plain intent.
var keyedRoles = []Role{RolePlain, RoleTwin}

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
