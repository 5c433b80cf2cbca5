package mcp

import (
	"encoding/json"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/harness"
)

// memoryTools are the tools the official Go SDK's example memory server
// lists (testdata/memory-tools.json is its tools/list, and
// TestMemoryServerSchemasAreTheLiveOnes keeps it so): write tools whose
// only arguments are arrays of objects.
func memoryTools(t *testing.T) map[string]*sdk.Tool {
	t.Helper()
	raw, err := os.ReadFile("testdata/memory-tools.json")
	require.NoError(t, err)
	var tools []*sdk.Tool
	require.NoError(t, json.Unmarshal(raw, &tools))
	out := map[string]*sdk.Tool{}
	for _, tl := range tools {
		out[tl.Name] = tl
	}
	return out
}

// The automatic choice finds a free-text place at any depth when the
// schema has none at the top.
func TestMarkerPropertyOnTheMemoryServer(t *testing.T) {
	t.Parallel()
	tools := memoryTools(t)
	for name, want := range map[string]string{
		"create_entities":     "entities.0.observations.0",
		"add_observations":    "observations.0.contents.0",
		"create_relations":    "relations.0.from",
		"delete_entities":     "entityNames.0",
		"delete_observations": "deletions.0.contents.0",
		"search_nodes":        "query",
		"open_nodes":          "names.0",
		"read_graph":          "",
	} {
		s, err := ParseSchema(tools[name].InputSchema)
		require.NoError(t, err, name)
		assert.Equal(t, want, s.MarkerProperty(), name)
	}
}

// Every way of placing the marker in create_entities: automatic, a JSON
// path (dotted or with brackets), or {{marker}} in fixed arguments at any
// depth, alone or in a longer text; the call is built with the marker
// where it was asked for and the rest generated from the schema.
func TestMarkerAtAnyDepth(t *testing.T) {
	t.Parallel()
	tool := memoryTools(t)["create_entities"]
	call := harness.Call{Operation: "create_entities", Marker: "idem-00000000000000aa", Inputs: map[string]string{}}
	for _, tc := range []struct {
		why  string
		tool Tool
		want string // the call's arguments, as JSON
	}{
		{"automatic: the first observation", Tool{Name: "create_entities"},
			`{"entities":[{"entityType":"E","name":"N","observations":["idem-00000000000000aa"]}]}`},
		{"a dotted path", Tool{Name: "create_entities", Marker: "entities.0.name"},
			`{"entities":[{"entityType":"E","name":"idem-00000000000000aa","observations":["O"]}]}`},
		{"a path with brackets", Tool{Name: "create_entities", Marker: "entities[0].observations[0]"},
			`{"entities":[{"entityType":"E","name":"N","observations":["idem-00000000000000aa"]}]}`},
		{"{{marker}} one level down, in fixed arguments, inside a longer text", Tool{Name: "create_entities", Arguments: map[string]any{
			"entities": []any{map[string]any{"name": "ann {{marker}}", "entityType": "person", "observations": []any{"met {{marker}}", "likes tea"}}},
		}}, `{"entities":[{"entityType":"person","name":"ann idem-00000000000000aa","observations":["met idem-00000000000000aa","likes tea"]}]}`},
		{"a fixed argument at a path", Tool{Name: "create_entities", Marker: "entities.0.name", Arguments: map[string]any{"entities[0].entityType": "person"}},
			`{"entities":[{"entityType":"person","name":"idem-00000000000000aa","observations":["O"]}]}`},
	} {
		p, _, err := newPlan(Config{}, tc.tool, tool)
		require.NoError(t, err, tc.why)
		in := map[string]string{}
		for path := range p.inputs {
			in[path] = map[string]string{"entities.0.name": "N", "entities.0.entityType": "E", "entities.0.observations.0": "O"}[path]
		}
		c := call
		c.Inputs = in
		params, err := p.params(c)
		require.NoError(t, err, tc.why)
		got, err := json.Marshal(params.Arguments)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(got), tc.why)
	}
}

func TestMarkerPathErrors(t *testing.T) {
	t.Parallel()
	tools := memoryTools(t)
	for _, tc := range []struct {
		why  string
		tool Tool
		from string
		want string
	}{
		{"a path the schema does not have", Tool{Name: "create_entities", Marker: "entities.0.nmae"}, "create_entities",
			`tool create_entities: marker: "entities.0.nmae" is not in the input schema (its leaves: entities.0.entityType, entities.0.name, entities.0.observations.0)`},
		{"a path to an array", Tool{Name: "create_entities", Marker: "entities"}, "create_entities", `"entities" is an array: {{marker}} is text`},
		{"no text anywhere, nothing fixed", Tool{Name: "read_graph", Mutating: ptr(true)}, "read_graph", "no free-text string argument to carry {{marker}}"},
	} {
		_, _, err := newPlan(Config{}, tc.tool, tools[tc.from])
		assert.ErrorContains(t, err, tc.want, tc.why)
	}
	_, _, err := newPlan(Config{}, Tool{Name: "read_graph", Mutating: ptr(true), Arguments: map[string]any{"filter": []any{map[string]any{"q": "{{marker}}"}}}}, tools["read_graph"])
	assert.NoError(t, err, "{{marker}} deep in a fixed argument carries it")
}

func ptr[T any](v T) *T { return &v }

// Schemas with arrays of objects, as JSON Schema writes them.
func TestLeavesOfArrays(t *testing.T) {
	t.Parallel()
	s, err := ParseSchema(map[string]any{
		"type":     "object",
		"required": []any{"lines", "tags"},
		"properties": map[string]any{
			"lines": map[string]any{"type": []any{"null", "array"}, "items": map[string]any{
				"type": "object", "required": []any{"sku", "qty"},
				"properties": map[string]any{"sku": map[string]any{"type": "string"}, "qty": map[string]any{"type": "integer", "minimum": 1}, "memo": map[string]any{"type": "string"}},
			}},
			"tags":     map[string]any{"type": "array", "items": []any{map[string]any{"type": "string", "maxLength": 20}}},
			"optional": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"anything": true,
		},
	})
	require.NoError(t, err, "tuple items and boolean schemas are read")
	var got []string
	for _, l := range s.Leaves() {
		got = append(got, l.Path)
	}
	assert.Equal(t, []string{"anything", "lines.0.memo", "lines.0.qty", "lines.0.sku", "optional", "tags.0"}, got,
		"required arrays are walked into; an optional one stays whole")
	assert.Equal(t, "lines.0.memo", s.MarkerProperty(), "a nested memo before a required sku")
	assert.Equal(t, "lines.0.sku", s.MarkerProperty("lines.0.memo"))
	assert.Equal(t, "integer", s.At("lines[0].qty").typeName())
	assert.Nil(t, s.At("lines.0.nope"))

	in, ok := InputFor(Property{Path: "lines.0.sku", Schema: s.At("lines.0.sku"), Required: true})
	require.True(t, ok)
	assert.Equal(t, "sku_", in.Prefix, "named after the property, not the index")

	args := map[string]any{}
	setPath(args, s, "lines.0.qty", 2)
	setPath(args, s, "lines.1.sku", "b")
	setPath(args, s, "tags.0", "x")
	raw, _ := json.Marshal(args)
	assert.JSONEq(t, `{"lines":[{"qty":2},{"sku":"b"}],"tags":["x"]}`, string(raw))
}
