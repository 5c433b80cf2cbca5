package checks

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/record"
)

// Untestable says why the record cannot be judged at all, or "": no
// effect could be attributed to any intent, or an operation never
// succeeded. Score sets such a record's TargetResult.Error, and the
// harness does not run generated trials against its target.
func Untestable(rec *record.Record) string {
	markers := map[string]bool{}
	for _, in := range rec.Intents {
		markers[in.Marker] = true
	}
	attributed := 0
	for _, e := range rec.Ledger {
		for _, m := range e.Markers {
			if markers[m] {
				attributed++
				break
			}
		}
	}
	if len(rec.Ledger) > 0 && attributed == 0 {
		return fmt.Sprintf("the fakes recorded %d effects but none carries an intent marker, so none can be attributed: make the target pass {{marker}} through to its downstream calls (e.g. in a description or metadata field)", len(rec.Ledger))
	}
	var broken []string
	for _, op := range rec.Target.Operations {
		tried, ok := 0, false
		var last *record.Attempt
		for i := range rec.Intents {
			in := &rec.Intents[i]
			if in.Operation != op.Name || (in.Role != record.RolePlain && in.Role != record.RoleRead) || in.Faulted() {
				continue // a faulted intent's retries are its check's to judge
			}
			for j := range in.Attempts {
				a := &in.Attempts[j]
				if a.Fault != "" {
					continue
				}
				tried++
				last = a
				// A safe operation's 4xx (a lookup of an id that does not
				// exist) is an answer like any other: the target works.
				if a.Outcome == record.OK || (!op.Mutating && a.Status >= 400 && a.Status < 500) {
					ok = true
				}
			}
		}
		if tried > 0 && !ok {
			what := fmt.Sprintf("answered %d %s%s", last.Status, short(strings.TrimSpace(last.Body), 120), oncehttp.PlainToTLSHint(last.Body))
			if last.Error != "" {
				what = last.Error
			}
			broken = append(broken, fmt.Sprintf("%s never succeeded in %s (last: %s)", op.Name, plural(tried, "attempt", "attempts"), what))
		}
	}
	if len(broken) > 0 {
		what := rec.Target.Request
		if what == "" {
			what = "method, path, body"
		}
		return strings.Join(broken, "; ") + ": check the operation's " + what + " and inputs, and that the target is healthy"
	}
	// After the operations that never worked: a target that acknowledged
	// its work but whose effects nothing counted cannot be judged at all.
	if n := acknowledgedActs(rec); attributed == 0 && n > 0 && len(rec.Observers) > 0 {
		// Say what each declared observer found, not to declare one.
		return fmt.Sprintf("no effect could be attributed: the target acknowledged %s but no fake or effect observer recorded any effect: %s; check each observer's query or read-back against what the target writes, and that {{marker}} reaches the stored data",
			plural(n, "mutating intent", "mutating intents"), strings.Join(rec.Observers, "; "))
	}
	if n := acknowledgedActs(rec); attributed > 0 && n > 0 {
		// The fakes counted effects, but an observer declared to count
		// the target's own ones found none in the whole run: what it
		// was meant to show (an order lost, a row written twice) would
		// go unseen, and the score would say more than was examined.
		var blind []string
		for _, line := range rec.Observers {
			if strings.Contains(line, ") found no ") && strings.Contains(line, " for any of the ") || strings.Contains(line, ") saw no change for any of the ") {
				blind = append(blind, line)
			}
		}
		if len(blind) > 0 {
			return fmt.Sprintf("an effect observer found nothing in the whole run, though the target acknowledged at least %s: %s; the effects it was declared to count are not counted, so one lost or made twice would go unseen: check its path, query or read-back against what the target writes, and that {{marker}} reaches the stored data",
				plural(n, "mutating intent", "mutating intents"), strings.Join(blind, "; "))
		}
	}
	if n := acknowledgedActs(rec); attributed == 0 && n > 0 {
		return fmt.Sprintf("no effect could be attributed: the target acknowledged %s but no fake or effect observer recorded any effect: point the target at the fakes (idemcheck fakes prints the environment to give a running service), make it pass {{marker}} through to its downstream calls, or declare observe: sources that count effects in its own data", plural(n, "mutating intent", "mutating intents"))
	}
	return ""
}

// acknowledgedActs counts the mutating intents the target said it carried
// out (dry runs and reused keys aside): each should have left an effect.
func acknowledgedActs(rec *record.Record) int {
	n := 0
	for i := range rec.Intents {
		in := &rec.Intents[i]
		switch in.Role {
		case record.RolePlain, record.RoleTwin, record.RoleBurst, record.RoleNoKey:
			if in.Mutating && in.Acknowledged() {
				n++
			}
		}
	}
	return n
}

// unattributed counts the recorded effects that carry no intent's marker.
func unattributed(rec *record.Record) int {
	markers := map[string]bool{}
	for _, in := range rec.Intents {
		markers[in.Marker] = true
	}
	n := 0
	for _, e := range rec.Ledger {
		if !explained(e, markers) {
			n++
		}
	}
	return n
}
