package docs_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// schemaDoc is a JSON Schema as the reference pages read it.
type schemaDoc struct {
	root map[string]any
	defs map[string]any
	// known names an enum that is a known set ("a check id") instead of
	// listing its values.
	known func(values []string) string
}

func readSchema(t *testing.T, raw []byte) *schemaDoc {
	t.Helper()
	var root map[string]any
	require.NoError(t, json.Unmarshal(raw, &root))
	defs, _ := root["$defs"].(map[string]any)
	return &schemaDoc{root: root, defs: defs, known: func([]string) string { return "" }}
}

// order lists the definitions reachable from s, each once, in the order
// a reader meets them (breadth first from s's fields).
func (d *schemaDoc) order(s map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	queue := []map[string]any{s}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, name := range refsIn(cur) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
				if def, ok := d.defs[name].(map[string]any); ok {
					queue = append(queue, def)
				}
			}
		}
	}
	var rest []string
	for name := range d.defs {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// refsIn lists the $defs that s refers to, in the order of its fields.
func refsIn(s any) []string {
	var out []string
	switch x := s.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
				out = append(out, name)
			}
		}
		for _, k := range sortedKeys(x) {
			if k == "properties" {
				props := x[k].(map[string]any)
				for _, p := range propertyOrder(props) {
					out = append(out, refsIn(props[p])...)
				}
				continue
			}
			if k != "$defs" {
				out = append(out, refsIn(x[k])...)
			}
		}
	case []any:
		for _, v := range x {
			out = append(out, refsIn(v)...)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// propertyOrder is the order fields are listed in: alphabetical, since a
// decoded schema keeps no order of its own.
func propertyOrder(props map[string]any) []string { return sortedKeys(props) }

// typeOf says in words what a value of schema s is.
func (d *schemaDoc) typeOf(s map[string]any) string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return fmt.Sprintf("[%s](#%s)", name, anchor(name))
	}
	if alts, ok := s["anyOf"].([]any); ok {
		return d.alternatives(alts)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		return d.alternatives(alts)
	}
	if enum, ok := s["enum"].([]any); ok {
		values := make([]string, len(enum))
		for i, v := range enum {
			values[i] = fmt.Sprint(v)
		}
		if k := d.known(values); k != "" {
			return k
		}
		return "one of " + list(values)
	}
	types := schemaTypes(s)
	switch {
	case len(types) == 0:
		return "any"
	case len(types) == 3 && types[0] == "string" && types[1] == "number" && types[2] == "boolean":
		return "string" // a scalar, taken as text
	case len(types) == 2 && types[1] == "null":
		return d.typeOf(map[string]any{"type": types[0], "items": s["items"], "additionalProperties": s["additionalProperties"], "pattern": s["pattern"], "format": s["format"]}) + " or null"
	case len(types) > 1:
		return strings.Join(types, " or ")
	}
	switch types[0] {
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			return "list of " + d.typeOf(items)
		}
		return "list"
	case "object":
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			return "map of " + d.typeOf(ap)
		}
		return "object"
	case "string":
		if p, _ := s["pattern"].(string); strings.Contains(p, "ms|s|m|h") {
			return "duration (`250ms`, `2s`)"
		}
		if f, _ := s["format"].(string); f != "" {
			return "string (" + f + ")"
		}
	}
	return types[0]
}

func (d *schemaDoc) alternatives(alts []any) string {
	var out []string
	null := false
	for _, a := range alts {
		m, _ := a.(map[string]any)
		if ts := schemaTypes(m); len(ts) == 1 && ts[0] == "null" && len(m) == 1 {
			null = true
			continue
		}
		out = append(out, d.typeOf(m))
	}
	if null && len(out) == 1 {
		return out[0]
	}
	if null {
		out = append(out, "null")
	}
	return strings.Join(out, ", or ")
}

func schemaTypes(s map[string]any) []string {
	switch x := s["type"].(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, v := range x {
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	return nil
}

// field is one row of an object's table.
type field struct {
	path     string
	schema   map[string]any
	required bool
}

// fields lists an object's fields; a field that is an object of its own
// (not a definition) is followed by its fields, as path.sub.
func fields(prefix string, s map[string]any) []field {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			required[fmt.Sprint(r)] = true
		}
	}
	var out []field
	for _, name := range propertyOrder(props) {
		ps, _ := props[name].(map[string]any)
		out = append(out, field{prefix + name, ps, required[name]})
		if _, ok := ps["properties"]; ok {
			out = append(out, fields(prefix+name+".", ps)...)
		}
	}
	return out
}

func description(s map[string]any) string {
	d, _ := s["description"].(string)
	return d
}
