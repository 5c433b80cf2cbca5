package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/harness"
)

// MarkerNames are the string properties (or arrays of strings, whose first
// element carries it) preferred for {{marker}}, in this order, before any
// other free-text string property.
var MarkerNames = []string{"description", "memo", "note", "notes", "comment", "reference", "message", "subject", "title", "text", "body", "query", "content", "contents", "observations"}

// Schema is the part of a JSON Schema idemcheck reads.
type Schema struct {
	Type             any                `json:"type,omitempty"`
	Properties       map[string]*Schema `json:"properties,omitempty"`
	Items            *Schema            `json:"items,omitempty"`
	Required         []string           `json:"required,omitempty"`
	Enum             []any              `json:"enum,omitempty"`
	Minimum          *float64           `json:"minimum,omitempty"`
	Maximum          *float64           `json:"maximum,omitempty"`
	ExclusiveMinimum *float64           `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *float64           `json:"exclusiveMaximum,omitempty"`
	MinLength        *int               `json:"minLength,omitempty"`
	MaxLength        *int               `json:"maxLength,omitempty"`
	Format           string             `json:"format,omitempty"`
	Pattern          string             `json:"pattern,omitempty"`
	Description      string             `json:"description,omitempty"`
	Default          any                `json:"default,omitempty"`
}

// UnmarshalJSON reads a schema as JSON Schema writes it, including the
// forms Schema's fields cannot hold as they are: a boolean schema (true:
// anything, false: nothing), and tuple items (a list of schemas, of which
// the first is kept: idemcheck sends one element).
func (s *Schema) UnmarshalJSON(b []byte) error {
	t := bytes.TrimSpace(b)
	if bytes.Equal(t, []byte("true")) || bytes.Equal(t, []byte("false")) {
		*s = Schema{}
		return nil
	}
	type plain Schema
	var x struct {
		plain
		Items json.RawMessage `json:"items,omitempty"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*s = Schema(x.plain)
	items := bytes.TrimSpace(x.Items)
	if len(items) > 0 && items[0] == '[' {
		var tuple []*Schema
		if err := json.Unmarshal(items, &tuple); err != nil {
			return err
		}
		if len(tuple) > 0 {
			s.Items = tuple[0]
		}
		return nil
	}
	if len(items) > 0 && !bytes.Equal(items, []byte("null")) {
		s.Items = &Schema{}
		return json.Unmarshal(items, s.Items)
	}
	return nil
}

// typeName is the schema's type ("string", "integer", …); a list of types
// gives its first non-null one.
func (s *Schema) typeName() string {
	if s == nil {
		return ""
	}
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if n, ok := x.(string); ok && n != "null" {
				return n
			}
		}
	}
	if len(s.Enum) > 0 {
		if _, ok := s.Enum[0].(string); ok {
			return "string"
		}
	}
	return ""
}

// ParseSchema reads a tool's input schema as the client received it (a
// decoded JSON value).
func ParseSchema(v any) (*Schema, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var s Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("input schema: %v", err)
	}
	return &s, nil
}

// Property is one leaf of an input schema: Path is its JSON path, names
// and indexes separated by dots ("address.city", "entities.0.name").
type Property struct {
	Path     string
	Schema   *Schema
	Required bool
}

// Leaves lists the schema's scalar properties, depth first, by name. A
// nested object is walked into; so is a required array, as its first
// element (index 0): one element is what a call sends. An optional array
// is a leaf of its own, left to the server's default.
func (s *Schema) Leaves() []Property {
	var out []Property
	var walk func(prefix string, s *Schema, required bool)
	into := func(path string, p *Schema, req bool) bool {
		switch {
		case p.typeName() == "object" && len(p.Properties) > 0:
			walk(path, p, req)
			return true
		case p.typeName() == "array" && req && p.Items != nil:
			elem := path + ".0"
			if p.Items.typeName() == "object" && len(p.Items.Properties) > 0 {
				walk(elem, p.Items, req)
			} else {
				out = append(out, Property{Path: elem, Schema: p.Items, Required: req})
			}
			return true
		}
		return false
	}
	walk = func(prefix string, s *Schema, required bool) {
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := s.Properties[n]
			if p == nil {
				continue
			}
			path := n
			if prefix != "" {
				path = prefix + "." + n
			}
			req := required && slices.Contains(s.Required, n)
			if !into(path, p, req) {
				out = append(out, Property{Path: path, Schema: p, Required: req})
			}
		}
	}
	walk("", s, true)
	return out
}

// At returns the schema of the value at a JSON path ("entities.0.name",
// "entities[0].observations[0]"), nil when the schema has no such place.
func (s *Schema) At(path string) *Schema {
	cur := s
	for _, part := range splitPath(path) {
		if cur == nil {
			return nil
		}
		if p, ok := cur.Properties[part]; ok {
			cur = p
			continue
		}
		if _, err := strconv.Atoi(part); err == nil && cur.typeName() == "array" {
			cur = cur.Items
			continue
		}
		return nil
	}
	return cur
}

// CanonicalPath writes a JSON path as Leaves does: names and indexes
// separated by dots ("entities[0].name" is "entities.0.name").
func CanonicalPath(path string) string { return strings.Join(splitPath(path), ".") }

// splitPath splits a JSON path into its names and indexes.
func splitPath(path string) []string {
	if path == "" {
		return nil
	}
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// leafName is the last name of a path, past any index: the name of the
// property an array element belongs to.
func leafName(path string) string {
	parts := splitPath(path)
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			return parts[i]
		}
	}
	return path
}

// Has reports whether the schema has a top-level property name.
func (s *Schema) Has(name string) bool {
	if s == nil {
		return false
	}
	_, ok := s.Properties[name]
	return ok
}

// freeText reports whether p can carry any text (a marker).
func freeText(p *Schema) bool {
	return p.typeName() == "string" && len(p.Enum) == 0 && p.Format == "" && p.Pattern == "" &&
		(p.MaxLength == nil || *p.MaxLength >= 40)
}

// MarkerProperty picks the string property {{marker}} goes into: one of
// MarkerNames at the top level if the schema has it; else, at any depth
// (inside nested objects and the first element of required arrays), a
// free-text property named one of MarkerNames, then the first required
// free-text property, then the first free-text one; "" when there is
// none. The path is a JSON path ("entities.0.name"). skip names
// properties already taken (the key, the dry-run flag).
func (s *Schema) MarkerProperty(skip ...string) string {
	for _, name := range MarkerNames {
		if p := s.Properties[name]; p != nil && freeText(p) && !slices.Contains(skip, name) {
			return name
		}
	}
	var free []Property
	for _, l := range s.Leaves() {
		if freeText(l.Schema) && !slices.Contains(skip, l.Path) && !KeyLike(leafName(l.Path)) {
			free = append(free, l)
		}
	}
	for _, name := range MarkerNames {
		for _, l := range free {
			if leafName(l.Path) == name {
				return l.Path
			}
		}
	}
	for _, l := range free {
		if l.Required {
			return l.Path
		}
	}
	if len(free) > 0 {
		return free[0].Path
	}
	return ""
}

// KeyArgument returns the first of KeyArgNames the schema has, or "".
func (s *Schema) KeyArgument() string {
	for _, n := range KeyArgNames {
		if s.Has(n) {
			return n
		}
	}
	return ""
}

// DryRunArgument returns the dry-run property the schema has, or "".
func (s *Schema) DryRunArgument() string {
	for _, n := range []string{DefaultDryRunArg, "dryRun"} {
		if p := s.Properties[n]; p != nil && p.typeName() == "boolean" {
			return n
		}
	}
	return ""
}

// InputFor says how to generate a property's value with the run's seed,
// and whether to send it at all: required properties always, optional
// ones when they are plain scalars (an optional flag or list is left to
// the server's default).
func InputFor(p Property) (harness.Input, bool) {
	s := p.Schema
	if len(s.Enum) > 0 {
		var choices []string
		for _, e := range s.Enum {
			choices = append(choices, fmt.Sprint(e))
		}
		return harness.Input{Kind: "choice", Choices: choices}, true
	}
	switch s.typeName() {
	case "integer", "number":
		lo, hi := 1.0, 9999.0
		if s.Minimum != nil {
			lo = *s.Minimum
		}
		if s.ExclusiveMinimum != nil {
			lo = *s.ExclusiveMinimum + 1
		}
		if s.Maximum != nil {
			hi = *s.Maximum
		} else if lo > 1 {
			hi = lo + 9999
		}
		if s.ExclusiveMaximum != nil {
			hi = *s.ExclusiveMaximum - 1
		}
		// Bounded so that the harness's generator (max-min+1) cannot
		// overflow, whatever the schema says.
		const limit = 1e9
		lo, hi = math.Ceil(max(min(lo, limit), -limit)), math.Floor(max(min(hi, limit), -limit))
		if math.IsNaN(lo) || math.IsNaN(hi) {
			lo, hi = 1, 9999
		}
		if hi < lo {
			hi = lo
		}
		return harness.Input{Kind: "int", Min: int(lo), Max: int(hi)}, true
	case "boolean":
		if !p.Required {
			return harness.Input{}, false
		}
		return harness.Input{Kind: "choice", Choices: []string{"false", "true"}}, true
	case "string":
		n := 8
		if s.MinLength != nil && *s.MinLength > n {
			n = *s.MinLength
		}
		if s.MaxLength != nil && *s.MaxLength < n {
			n = *s.MaxLength
		}
		leaf := leafName(p.Path)
		prefix := ""
		if s.Format == "email" {
			return harness.Input{Kind: "choice", Choices: []string{"ann@example.test", "bob@example.test"}}, true
		}
		if s.MaxLength == nil || *s.MaxLength >= len(leaf)+1+n {
			prefix = leaf + "_"
		}
		return harness.Input{Kind: "string", Prefix: prefix, Length: n}, true
	}
	return harness.Input{}, false
}

// typed converts a generated value to its JSON type.
func typed(s *Schema, v string) any {
	if s == nil {
		return v
	}
	switch s.typeName() {
	case "integer":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case "number":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}

// setPath sets the value at a JSON path in the arguments m, making the
// objects and arrays on the way. A part that is a number is an index into
// an array, unless the schema there has a property of that name.
func setPath(m map[string]any, schema *Schema, path string, v any) {
	parts := splitPath(path)
	if len(parts) == 0 {
		return
	}
	m[parts[0]] = setIn(m[parts[0]], schema.At(parts[0]), parts[1:], v)
}

// setIn returns cur with v set at the path parts below it; s is cur's
// schema (nil when unknown).
func setIn(cur any, s *Schema, parts []string, v any) any {
	if len(parts) == 0 {
		return v
	}
	part := parts[0]
	var child *Schema
	if s != nil {
		child = s.Properties[part]
	}
	if i, err := strconv.Atoi(part); err == nil && i >= 0 && child == nil && i < maxIndex {
		arr, _ := cur.([]any)
		for len(arr) <= i {
			arr = append(arr, nil)
		}
		if s != nil {
			child = s.Items
		}
		arr[i] = setIn(arr[i], child, parts[1:], v)
		return arr
	}
	obj, ok := cur.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	obj[part] = setIn(obj[part], child, parts[1:], v)
	return obj
}

// maxIndex bounds the index a configured path may set: an array is
// padded up to it.
const maxIndex = 1000

// Annotated says what a tool's annotations claim: nil annotations mean
// none were given.
func Annotated(t *sdk.Tool) (readOnly, idempotent, hasAnnotations bool, destructive *bool) {
	if t.Annotations == nil {
		return false, false, false, nil
	}
	a := t.Annotations
	return a.ReadOnlyHint, a.IdempotentHint, true, a.DestructiveHint
}
