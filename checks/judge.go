package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// The helpers the checks judge a record with.

// evidence gathers intents and their effects.
func evidence(r *record.Record, ins ...*record.Intent) record.Evidence {
	var ev record.Evidence
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
func statuses(in *record.Intent) string {
	parts := make([]string, 0, len(in.Attempts))
	for _, a := range in.Attempts {
		s := answerOf(a)
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
var keyedRoles = []record.Role{record.RolePlain, record.RoleTwin}

// intentsByRole returns pointers to the record's intents with the role.
func intentsByRole(r *record.Record, roles ...record.Role) []*record.Intent {
	var out []*record.Intent
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

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// busy says whether status answers that the key's request is still in
// progress (409, 425, 429).
func busy(status int) bool { return status == 409 || status == 425 || status == 429 }

// noAck begins the error of a queue consumer's attempt whose event was
// not acknowledged in time (targets/consumer).
const noAck = "the consumer did not acknowledge event "

// answerOf says how an attempt was answered, as its kind says it: its
// status (an HTTP status, an exit code), "isError" for an MCP result
// that says it failed, "JSON-RPC error N", "no ack" for an event a
// consumer did not acknowledge in time, else its outcome.
func answerOf(a record.Attempt) string {
	switch {
	case strings.HasPrefix(a.Error, noAck):
		return "no ack"
	case strings.HasPrefix(a.Error, "isError"):
		return "isError"
	case strings.HasPrefix(a.Error, "JSON-RPC error"):
		head, _, _ := strings.Cut(a.Error, ":")
		return head
	case a.Status > 0 && a.Status < 100 && strings.HasPrefix(a.Error, "exit "):
		return fmt.Sprintf("exit %d", a.Status) // a command-line tool's exit status
	case a.Status != 0:
		return fmt.Sprint(a.Status)
	}
	return string(a.Outcome)
}

// refusalOf names the answer by which a target of r's kind refuses a
// request: the HTTP status httpStatus (an MCP tool's result may say one
// too), or, for a command-line tool, an exit status that refuses: not 0,
// and none of those by which the tool invites a retry (75 by default).
func refusalOf(r *record.Record, httpStatus int) string {
	if r.Target.Kind == "cli" {
		return "a non-zero exit status that is not a temporary failure"
	}
	return fmt.Sprint(httpStatus)
}
