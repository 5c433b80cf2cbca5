package record_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/record"
)

// TestReadResultSaysWhatIsWrong: a file ReadResult cannot use is named
// for what it is.
func TestReadResultSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ why, in, want string }{
		{"not JSON, with where", "{\n  \"schema\": oops}", "not JSON: line 2, column 13"},
		{"no schema", `{"seed": 1}`, `no "schema" field`},
		{"a JSON report has no history", `{"schema": "idemcheck.report/v1"}`, "a JSON report (idemcheck.report/v1), which has no history to re-score"},
		{"another schema", `{"schema": "idemcheck.result/v9"}`, `schema "idemcheck.result/v9", expected "idemcheck.result/v1"`},
		{"the wrong shape", `{"schema": "idemcheck.result/v1", "seed": "one"}`, "not a valid idemcheck.result/v1"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := record.ReadResult([]byte(tc.in))
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := record.ReadResultFile(filepath.Join(t.TempDir(), "nope.json"))
	assert.EqualError(t, err, "no such file")
}
