package mcp

import (
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

// MarkerNames are the string properties preferred for {{marker}}, in this
// order, before any other free-text string property.
var MarkerNames = []string{"description", "memo", "note", "notes", "comment", "reference", "message", "subject", "title", "text", "body", "query"}

// Schema is the part of a JSON Schema idemcheck reads.
type Schema struct {
	Type             any                `json:"type,omitempty"`
	Properties       map[string]*Schema `json:"properties,omitempty"`
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

// Property is one leaf of an input schema: Path is dotted for nested
// objects.
type Property struct {
	Path     string
	Schema   *Schema
	Required bool
}

// Leaves lists the schema's scalar properties, depth first, by name.
func (s *Schema) Leaves() []Property {
	var out []Property
	var walk func(prefix string, s *Schema, required bool)
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
			if p.typeName() == "object" && len(p.Properties) > 0 {
				walk(path, p, req)
				continue
			}
			out = append(out, Property{Path: path, Schema: p, Required: req})
		}
	}
	walk("", s, true)
	return out
}

// Has reports whether the schema has a top-level property name.
func (s *Schema) Has(name string) bool {
	_, ok := s.Properties[name]
	return s != nil && ok
}

// freeText reports whether p can carry any text (a marker).
func freeText(p *Schema) bool {
	return p.typeName() == "string" && len(p.Enum) == 0 && p.Format == "" && p.Pattern == "" &&
		(p.MaxLength == nil || *p.MaxLength >= 40)
}

// MarkerProperty picks the string property {{marker}} goes into: one of
// MarkerNames if the schema has it, else the first free-text string
// property; "" when there is none. skip names properties already taken
// (the key, the dry-run flag).
func (s *Schema) MarkerProperty(skip ...string) string {
	var first string
	for _, name := range MarkerNames {
		if p := s.Properties[name]; p != nil && freeText(p) && !slices.Contains(skip, name) {
			return name
		}
	}
	for _, l := range s.Leaves() {
		if freeText(l.Schema) && !slices.Contains(skip, l.Path) {
			if l.Required || first == "" {
				if l.Required {
					return l.Path
				}
				first = l.Path
			}
		}
	}
	return first
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
		leaf := p.Path[strings.LastIndexByte(p.Path, '.')+1:]
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

// setPath sets a dotted path in a JSON object, making the objects on the
// way.
func setPath(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// Annotated says what a tool's annotations claim: nil annotations mean
// none were given.
func Annotated(t *sdk.Tool) (readOnly, idempotent, hasAnnotations bool, destructive *bool) {
	if t.Annotations == nil {
		return false, false, false, nil
	}
	a := t.Annotations
	return a.ReadOnlyHint, a.IdempotentHint, true, a.DestructiveHint
}
