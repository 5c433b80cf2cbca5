package checks_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// exited is a command-line tool's call that ended with a refusing exit
// status, as the CLI adapter records it.
func exited(code int) record.Attempt {
	a := failed(code)
	a.Error = fmt.Sprintf("exit %d", code)
	return a
}

// TestFindingsSpeakTheTargetsKind: a command-line tool's findings name
// exit statuses, not HTTP statuses; an HTTP target's keep their codes.
func TestFindingsSpeakTheTargetsKind(t *testing.T) {
	build := func(kind string) *record.Record {
		b := newRec()
		b.rec.Target.Kind = kind
		o := b.intent(plain, opCharge)
		b.try(o, ok(0, "created", "ord_1"), mine())
		b.try(b.intent(mismatch, opCharge, o), ok(0, "created", "ord_2"), mine())
		n := b.intent(noKey, opCharge)
		b.try(n, ok(0, "created", "ord_3"), mine()).try(n, ok(0, "created", "ord_4"), mine())
		b.try(b.intent(dryRun, opCharge), exited(2))
		return b.done()
	}
	messages := func(rec *record.Record) map[string][]string {
		_, findings := checks.Evaluate(rec)
		out := map[string][]string{}
		for _, f := range findings {
			out[f.Check] = append(out[f.Check], f.Message)
		}
		return out
	}

	cli := messages(build("cli"))
	if assert.Len(t, cli[checks.CheckKeyMismatch], 1) {
		assert.Contains(t, cli[checks.CheckKeyMismatch][0], "expected a rejection (a non-zero exit status that is not a temporary failure)")
	}
	if assert.Len(t, cli[checks.CheckKeyRequired], 1) {
		assert.Contains(t, cli[checks.CheckKeyRequired][0], "expected a refusal (a non-zero exit status that is not a temporary failure)")
	}
	if assert.Len(t, cli[checks.CheckDryRun], 1) {
		assert.Contains(t, cli[checks.CheckDryRun][0], "the dry run was answered exit 2")
	}

	http := messages(build("http"))
	if assert.Len(t, http[checks.CheckKeyMismatch], 1) {
		assert.Contains(t, http[checks.CheckKeyMismatch][0], "expected a rejection (422)")
	}
	if assert.Len(t, http[checks.CheckKeyRequired], 1) {
		assert.Contains(t, http[checks.CheckKeyRequired][0], "expected a refusal (400)")
	}
}
