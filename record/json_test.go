package record_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestWriteJSONListsNoFindingsAsEmpty: a target with no finding has an
// empty list, which a reader can range over, not null; the result
// written is not changed.
func TestWriteJSONListsNoFindingsAsEmpty(t *testing.T) {
	res := &record.Result{Schema: record.ResultSchema, Targets: []record.TargetResult{{Name: "clean"}}}
	var b bytes.Buffer
	require.NoError(t, res.WriteJSON(&b))
	assert.Contains(t, b.String(), `"findings": []`)
	assert.NotContains(t, b.String(), `"findings": null`)
	assert.Nil(t, res.Targets[0].Findings, "the result itself is left as it was")
}
