package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

var replyHonest = Invariant{
	ID:       CheckReplyHonest,
	Property: "a call answered as a failure (an error reply, a 5xx, isError, a JSON-RPC error, a non-zero exit) caused no effect",
	Level:    2,
	// It judges the calls other probes make; a target whose calls never
	// fail has nothing to show it.
	Optional: true,
	Probes:   sequentialProbes,
	Skip: func(*record.Record) string {
		return "no mutating operation was called"
	},
	Eval: evalReplyHonest,
}

// honestRoles are the intents whose attempts reply.honest judges: those
// no other check holds to a failure. A reused key with another payload,
// a forged delivery, a key sent to another operation or by another caller,
// a dry run and the copies of a burst are judged by their own checks.
var honestRoles = []record.Role{
	record.RolePlain, record.RoleTwin, record.RoleNoKey, record.RoleLate, record.RoleFiller,
	record.RoleAfterDryRun, record.RoleRead, record.RoleHinted, record.RoleAfterBadSignature, record.RoleOutOfOrder,
}

// evalReplyHonest reports every attempt the target itself answered as a
// failure while the intent's effect was recorded during that attempt, and
// during no other attempt of it. Attempts under a fault are left out: a
// downstream that fails after acting leaves the target rightly unsure,
// and a fault may turn any reply into a failure. So is an effect whose
// call the target gave up on without reading the fake's reply
// (fakes.Effect.Unanswered). So is an attempt after
// one whose outcome the caller could not know: that earlier attempt may
// still be acting.
func evalReplyHonest(r *record.Record) ([]record.Finding, bool) {
	var fs []record.Finding
	applicable := false
	caps := r.Target.Caps()
	keyless := !caps.Keys && !caps.EventKeys
	for _, in := range intentsByRole(r, honestRoles...) {
		if !in.Mutating {
			continue
		}
		applicable = true
		effs := r.EffectsOf(in)
		for i := range in.Attempts {
			a := &in.Attempts[i]
			if a.Fault != "" || a.Crashed || a.Burst || a.DryRun || a.Withheld || !a.Forwarded {
				if a.Fault != "" || a.Crashed || !a.Forwarded {
					break // what follows may be the faulted attempt still acting
				}
				continue
			}
			how := failedAnswer(*a)
			if how == "" {
				if a.Outcome != record.OK {
					break // unknown: it may still be acting
				}
				continue
			}
			during := effectsDuring(in, i, effs)
			if len(during) == 0 {
				continue
			}
			f := record.Finding{Check: CheckReplyHonest, Severity: record.Major, Operation: in.Operation, Evidence: evidence(r, in)}
			msg := fmt.Sprintf("%s: attempt %d was answered as a failure (%s) but its effect happened (%s)", in.Operation, a.N, how, effectIDs(during))
			switch {
			case keyless || in.Key == "" && in.Role != record.RoleNoKey:
				f.Severity = record.Critical
				msg += ": the caller is told it failed and will retry, and the operation takes no key, so the retry acts again"
			case in.Key != "" && repeated(effs) > 1 && anyAfter(effs, a.LedgerAfter):
				f.Severity = record.Critical
				msg += fmt.Sprintf(": the caller is told it failed, and its retry with the same key acted again (%s in all)", plural(len(effs), "effect", "effects"))
			default:
				msg += ": the caller is told it failed; it will retry, compensate, or report a failure that did not happen"
			}
			msg += ". Answer a failure only when nothing happened; once the effect is done, answer its success (or undo it before answering failure)"
			f.Message = msg
			fs = append(fs, f)
			break // one finding per intent: its first misleading answer
		}
	}
	return fs, applicable
}

// failedAnswer says how the target answered attempt a as a failure
// ("HTTP 502", "isError: true", "JSON-RPC error -32603", "exit 1"), or ""
// when a is not a failure the target itself answered.
func failedAnswer(a record.Attempt) string {
	if a.Outcome == record.OK || a.ExitSignal != "" {
		return ""
	}
	switch {
	case strings.HasPrefix(a.Error, "isError"):
		return "isError: true"
	case strings.HasPrefix(a.Error, "JSON-RPC error"):
		head, _, _ := strings.Cut(a.Error, ":")
		return head
	case strings.HasPrefix(a.Error, "exit 0, but the reply says"):
		return `exit 0 with "ok": false`
	case a.Status >= 400 && a.Status <= 599 && !strings.HasPrefix(a.Error, "the target"):
		return fmt.Sprintf("HTTP %d", a.Status)
	case a.Status > 0 && a.Status < 100 && strings.HasPrefix(a.Error, "exit "):
		return fmt.Sprintf("exit %d", a.Status)
	}
	return ""
}

// effectsDuring returns the effects of effs recorded while attempt i of
// in ran, and while no other attempt of it did, that the target heard
// of: one whose call it had hung up on before the fake answered (its
// own timeout gave up on a slow fake) leaves it rightly unsure, as a
// fault does.
func effectsDuring(in *record.Intent, i int, effs []fakes.Effect) []fakes.Effect {
	a := in.Attempts[i]
	var out []fakes.Effect
	for _, e := range effs {
		if e.Seq <= a.LedgerBefore || e.Seq > a.LedgerAfter || e.Unanswered {
			continue
		}
		alone := true
		for j, b := range in.Attempts {
			if j != i && e.Seq > b.LedgerBefore && e.Seq <= b.LedgerAfter {
				alone = false
			}
		}
		if alone {
			out = append(out, e)
		}
	}
	return out
}
