package schema_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports/schema"
)

const tiny = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["a", "list"],
  "additionalProperties": false,
  "properties": {
    "a": {"type": "integer", "minimum": 0, "description": "a count"},
    "s": {"type": "string", "enum": ["x", "y"]},
    "list": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "m": {"type": "object", "additionalProperties": {"type": "string"}},
    "n": {"type": ["integer", "null"]}
  },
  "$defs": {
    "item": {"type": "object", "required": ["id"], "additionalProperties": false, "properties": {"id": {"type": "string"}}}
  }
}`

// TestValidatorCatchesEachViolation plants one violation per row and
// checks that the validator reports it, where it is.
func TestValidatorCatchesEachViolation(t *testing.T) {
	cases := []struct {
		why, doc, want string
	}{
		{"a valid document passes", `{"a": 1, "list": [{"id": "q"}], "m": {"k": "v"}, "n": null}`, ""},
		{"a missing required field", `{"list": []}`, `$: required field "a" is missing`},
		{"an undocumented field", `{"a": 1, "list": [], "extra": true}`, `$: field "extra" is not in the schema`},
		{"an undocumented field deep down, through $ref", `{"a": 1, "list": [{"id": "q", "x": 1}]}`, `$.list[0]: field "x" is not in the schema`},
		{"a wrong type", `{"a": "1", "list": []}`, `$.a: expected integer, got string "1"`},
		{"a fraction where an integer is due", `{"a": 1.5, "list": []}`, `$.a: expected integer, got number 1.5`},
		{"below the minimum", `{"a": -1, "list": []}`, `$.a: -1 is less than the minimum 0`},
		{"not in the enum", `{"a": 1, "list": [], "s": "z"}`, `$.s: "z" is not one of ["x","y"]`},
		{"a map value of the wrong type", `{"a": 1, "list": [], "m": {"k": 2}}`, `$.m.k: expected string, got integer 2`},
		{"one of several types", `{"a": 1, "list": [], "n": "no"}`, `$.n: expected integer or null, got string "no"`},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			err := schema.Validate([]byte(tiny), []byte(tc.doc))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var errs schema.Errors
			require.ErrorAs(t, err, &errs)
			assert.Contains(t, []string(errs), tc.want)
		})
	}
}

// TestValidatorChecksEveryKeyword: the whole of JSON Schema is checked
// (pattern here), and a reference that leaves the schema is refused, not
// loaded.
func TestValidatorChecksEveryKeyword(t *testing.T) {
	err := schema.Validate([]byte(`{"type": "string", "pattern": "^a"}`), []byte(`"b"`))
	var errs schema.Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, schema.Errors{`$: 'b' does not match pattern '^a'`}, errs)
	assert.NoError(t, schema.Validate([]byte(`{"type": "string", "pattern": "^a"}`), []byte(`"abc"`)))

	err = schema.Validate([]byte(`{"$ref": "other.json#/x"}`), []byte(`1`))
	require.Error(t, err)
	assert.False(t, errors.As(err, &errs), "a schema that cannot be compiled is not a verdict on the document")
	assert.Contains(t, err.Error(), "only references within the schema itself")

	err = schema.Validate([]byte(`{"type": "object"}`), []byte(`{} {}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "document: ")
}

// TestReportSchemaIsWellFormed checks the schema itself: valid JSON,
// draft 2020-12, every object closed and every property described.
func TestReportSchemaIsWellFormed(t *testing.T) {
	var root map[string]any
	require.NoError(t, json.Unmarshal(schema.ReportV1, &root))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", root["$schema"])
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if s["type"] == "object" {
			if _, ok := s["additionalProperties"]; !ok {
				t.Errorf("%s: an object without additionalProperties: undocumented fields would pass", path)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			ps := p.(map[string]any)
			if _, ok := ps["description"]; !ok {
				if _, ref := ps["$ref"]; !ref {
					t.Errorf("%s.%s: no description", path, name)
				}
			}
			walk(path+"."+name, ps)
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"[]", items)
		}
	}
	walk("$", root)
	for name, d := range root["$defs"].(map[string]any) {
		walk("$defs."+name, d.(map[string]any))
	}
	// The smallest report the schema allows passes.
	assert.NoError(t, schema.Validate(schema.ReportV1, []byte(`{"schema":"idemcheck.report/v1","seed":0,"meta":{},"started":"2026-01-01T00:00:00Z","duration_ms":0,"replay":"","summary":{"targets":0,"untested":0,"intents":0,"trials":0,"attempts":0,"effects":0,"findings":0,"critical":0,"major":0,"minor":0,"duration_ms":0},"targets":[]}`)))
}
