package schema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config/schema"
)

// order is a small struct that uses every kind of rule.
type order struct {
	Name     string            `yaml:"name"`
	Paid     *bool             `yaml:"paid"`
	Method   string            `yaml:"method,omitempty"`
	Path     string            `yaml:"path,omitempty"`
	Tries    int               `yaml:"tries,omitempty"`
	Codes    []int             `yaml:"codes,omitempty"`
	Headers  map[string]string `yaml:"headers,omitempty"`
	Shipping *address          `yaml:"shipping,omitempty"`
}

type address struct {
	City string `yaml:"city"`
}

func (order) Rules(r *schema.Rules) {
	r.Field("name").Required("name the order")
	r.Field("paid").Required("say whether it is paid")
	r.Field("method").Enum([]string{"GET", "POST"}, schema.Unknown("method", []string{"GET", "POST"}))
	r.Field("path").Pattern("^/", schema.Sprintf("must start with /, got %q"))
	r.Field("tries").Range(0, 5, schema.Sprintf("%v tries is out of range"), 1)
	r.Field("codes").Items().Range(1, 255, schema.Sprintf("%v is no exit code"))
	r.Field("headers").Keys().Pattern("^[A-Za-z-]+$", schema.Sprintf("invalid header name %q"))
}

func (address) Rules(r *schema.Rules) { r.Field("city").Required("the city") }

func compile(t *testing.T) *schema.Schema {
	t.Helper()
	g := &schema.Generator{}
	doc, msgs := g.Document(reflect.TypeFor[order](), map[string]any{"$id": "https://example.test/order.json"})
	s, err := schema.Compile("https://example.test/order.json", doc, msgs)
	require.NoError(t, err)
	return s
}

// unknown is the Explain of the tests: the key and the known fields.
func unknown(_ []string, key string, known []string) (string, bool) {
	return "unknown " + key + " (known: " + strings.Join(known, ", ") + ")", true
}

func TestValidateSaysWhatTheRulesSay(t *testing.T) {
	s := compile(t)
	assert.Empty(t, s.Validate(map[string]any{"name": "a", "paid": true, "method": "GET", "path": "/x", "tries": int64(2),
		"codes": []any{int64(75)}, "headers": map[string]any{"X-A": "1"}, "shipping": map[string]any{"city": "Oslo"}}, unknown),
		"a valid order has no problem")

	for _, tc := range []struct {
		why      string
		instance map[string]any
		want     schema.Problem
	}{
		{"a required field that is absent", map[string]any{"paid": true},
			schema.Problem{At: []string{"name"}, Missing: true, Msg: "missing: name the order"}},
		{"a required field written empty", map[string]any{"name": "", "paid": true},
			schema.Problem{At: []string{"name"}, Msg: "must not be empty: name the order"}},
		{"a required field written null", map[string]any{"name": "a", "paid": nil},
			schema.Problem{At: []string{"paid"}, Msg: "must not be empty: say whether it is paid"}},
		{"a value of the wrong type", map[string]any{"name": "a", "paid": "yes"},
			schema.Problem{At: []string{"paid"}, Msg: `expected a boolean (true or false), got string "yes"`}},
		{"an unknown value, with a suggestion", map[string]any{"name": "a", "paid": true, "method": "PSOT"},
			schema.Problem{At: []string{"method"}, Msg: `unknown method "PSOT" (did you mean "POST"? known methods: GET, POST)`}},
		{"a pattern", map[string]any{"name": "a", "paid": true, "path": "x"},
			schema.Problem{At: []string{"path"}, Msg: `must start with /, got "x"`}},
		{"a range's excluded value", map[string]any{"name": "a", "paid": true, "tries": int64(1)},
			schema.Problem{At: []string{"tries"}, Msg: "1 tries is out of range"}},
		{"a range's bound", map[string]any{"name": "a", "paid": true, "tries": int64(9)},
			schema.Problem{At: []string{"tries"}, Msg: "9 tries is out of range"}},
		{"a list's item", map[string]any{"name": "a", "paid": true, "codes": []any{int64(75), int64(0)}},
			schema.Problem{At: []string{"codes", "1"}, Msg: "0 is no exit code"}},
		{"a map's key, at its value", map[string]any{"name": "a", "paid": true, "headers": map[string]any{"X A": "1"}},
			schema.Problem{At: []string{"headers", "X A"}, Msg: `invalid header name "X A"`}},
		{"a field the struct has not, explained by the caller", map[string]any{"name": "a", "paid": true, "colour": "red"},
			schema.Problem{At: []string{"colour"}, Key: true, Unknown: true, Msg: "unknown colour (known: name, paid, method, path, tries, codes, headers, shipping)"}},
		{"inside an optional section", map[string]any{"name": "a", "paid": true, "shipping": map[string]any{}},
			schema.Problem{At: []string{"shipping", "city"}, Missing: true, Msg: "missing: the city"}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, []schema.Problem{tc.want}, s.Validate(tc.instance, unknown))
		})
	}
}

// A rule on a field the struct has not is a programming error, found by
// any test that generates the schema.
func TestARuleOnNoFieldPanics(t *testing.T) {
	g := &schema.Generator{}
	assert.PanicsWithValue(t, `schema: schema_test.typo has rules for "nmae", which is none of its fields`, func() {
		g.Document(reflect.TypeFor[typo](), nil)
	})
}

type typo struct {
	Name string `yaml:"name"`
}

func (typo) Rules(r *schema.Rules) { r.Field("nmae").Required("x") }

func TestDidYouMean(t *testing.T) {
	assert.Equal(t, `did you mean "method"? `, schema.DidYouMean("methdo", []string{"name", "method"}))
	assert.Empty(t, schema.DidYouMean("grpc", []string{"http", "cli"}), "nothing close enough")
}
