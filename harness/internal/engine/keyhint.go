package engine

import (
	"fmt"

	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
)

// keyFormatHint explains an untestable target whose every keyed request to
// a mutating operation was refused (4xx or 5xx, none accepted): the usual
// cause is a target that validates the shape of its keys (a UUID, a
// prefix), which idemcheck's default keys do not have. It returns "" when
// a keyed request was accepted or none was refused.
func keyFormatHint(rec *record.Record, format keys.Format) string {
	refused, status, example := 0, 0, ""
	for i := range rec.Intents {
		in := &rec.Intents[i]
		if !in.Mutating || in.Key == "" || in.Role != record.RolePlain {
			continue // a dry run may be answered before any key is looked at
		}
		for _, a := range in.Attempts {
			switch {
			case a.Fault != "":
			case a.Outcome == record.OK:
				return ""
			case a.Status >= 400:
				refused++
				status, example = a.Status, in.Key
			}
		}
	}
	if refused == 0 {
		return ""
	}
	return fmt.Sprintf("; every request with an idempotency key was refused (last: %d for key %q, key_format %s): "+
		"if the target checks the shape of its keys, set key_format to what it accepts: uuid, token, or a template such as \"prefix-{{hex 16}}\"",
		status, example, format)
}
