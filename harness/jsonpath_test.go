package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/harness"
)

func TestJSONPath(t *testing.T) {
	t.Parallel()
	var doc any
	dec := json.NewDecoder(strings.NewReader(`{"effect":"created","data":{"id":"ord_1","n":12,"items":[{"id":"it_1"}],"none":null,"obj":{"a":1}}}`))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		why, path, want string
		found           bool
	}{
		{"a string as is", "data.id", "ord_1", true},
		{"a number as written", "data.n", "12", true},
		{"an array index", "data.items.0.id", "it_1", true},
		{"an object as JSON", "data.obj", `{"a":1}`, true},
		{"null is not found", "data.none", "", false},
		{"a missing key", "data.nope", "", false},
		{"an index out of range", "data.items.3", "", false},
		{"through a string", "effect.x", "", false},
		{"no path", "", "", false},
	} {
		t.Run(tc.why, func(t *testing.T) {
			got, found := harness.JSONPath(doc, tc.path)
			assert.Equal(t, tc.found, found)
			assert.Equal(t, tc.want, got)
		})
	}
	got, ok := harness.JSONPath(map[string]any{"n": float64(1e6)}, "n")
	assert.True(t, ok)
	assert.Equal(t, "1000000", got, "a number decoded without UseNumber is written in full")
}
