package engine

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// keyFormatHint explains an untestable target whose every keyed request to
// a mutating operation was refused (4xx or 5xx, none accepted): the usual
// cause is a target that validates the shape of its keys (a UUID, a
// prefix), which idemcheck's default keys do not have. It returns "" when
// a keyed request was accepted or none was refused.
func keyFormatHint(rec *record.Record, format keys.Format) string {
	refused, status, example, meta, said, last := 0, "", "", "", "", ""
	for i := range rec.Intents {
		in := &rec.Intents[i]
		if !in.Mutating || in.Key == "" || in.Role != record.RolePlain {
			continue // a dry run may be answered before any key is looked at
		}
		for _, a := range in.Attempts {
			switch {
			case a.Fault != "":
			case strings.HasPrefix(a.Body, faults.ProxyErrorPrefix):
				// The proxy's own 502: the target's reply never came whole,
				// and says nothing of its keys.
			case a.Outcome == record.OK:
				return ""
			case a.Status >= 400 || strings.HasPrefix(a.Error, "isError") || strings.HasPrefix(a.Error, "JSON-RPC error"):
				refused++
				status, example, last = answered(a), in.Key, strings.TrimSpace(a.Error+" "+a.Body)
				if f, ok := keys.MetaField(a.Error + " " + a.Body); ok && meta == "" {
					meta, said = f, strings.TrimSpace(a.Error)
				}
			}
		}
	}
	if meta != "" {
		// The refusal itself says where the key goes: in the call's
		// _meta, where no key was sent.
		return fmt.Sprintf("; the refusal names _meta (%q): the server takes its idempotency key in the call's _meta, where none was sent: set key_meta: %s",
			clip(said, 160), meta)
	}
	if refused == 0 || !mayBeTheKey(last) {
		return ""
	}
	return fmt.Sprintf("; every request with an idempotency key was refused (last: %s for key %q, key_format %s): "+
		"if the target checks the shape of its keys, set key_format to what it accepts: uuid, token, or a template such as \"prefix-{{hex 16}}\"",
		status, example, format)
}

// mayBeTheKey says whether a refusal that reads text may be of the key's
// shape: any refusal may, but one that names another field its schema
// does not allow (an argument it does not take), and no key, is not, and
// advice on keys would send the reader the wrong way.
func mayBeTheKey(text string) bool {
	t := strings.ToLower(text)
	if strings.Contains(t, "key") || strings.Contains(t, "uuid") {
		return true
	}
	for _, other := range []string{"additional propert", "unknown field", "unknown argument", "unexpected argument", "unexpected field"} {
		if strings.Contains(t, other) {
			return false
		}
	}
	return true
}

// answered says how a refusal came: "isError", "JSON-RPC error -32602",
// or its status.
func answered(a record.Attempt) string {
	switch {
	case strings.HasPrefix(a.Error, "isError"):
		return "isError"
	case strings.HasPrefix(a.Error, "JSON-RPC error"):
		head, _, _ := strings.Cut(a.Error, ":")
		return head
	}
	return fmt.Sprint(a.Status)
}

// clip cuts s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
