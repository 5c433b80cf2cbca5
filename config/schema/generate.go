package schema

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
)

// Generator builds a JSON Schema (draft 2020-12) from Go types: a struct
// is an object whose properties are its fields by their yaml tags
// (embedded structs tagged ",inline" add theirs), refusing any other
// property; the rules of a Ruler add what the Go type cannot say, and
// the message each rule gives when it is broken. The messages are kept
// by the location of the keyword in the schema, where a validation error
// names it (see Schema.Validate).
type Generator struct {
	// Docs returns the description of a struct type (field "") or of one
	// of its fields, by its Go name; nil or "" for none. Descriptions are
	// for editors: validation does not need them.
	Docs func(t reflect.Type, field string) string
	// Custom returns the schema of a type the reflection cannot describe
	// (an interface, a type that decodes itself), placed at loc; ok is
	// false for the other types. It may call Ref and Message.
	Custom func(g *Generator, t reflect.Type, loc string) (s map[string]any, ok bool)

	defs  map[string]any
	names map[reflect.Type]string
	msgs  *Messages
}

// Schemer is implemented by a type that gives its own schema, placed at
// loc; it may register messages with g.Message.
type Schemer interface {
	JSONSchema(g *Generator, loc string) map[string]any
}

// Document returns the schema of root, with the keys of meta ($id, title,
// description…) at its top, and the messages of its rules.
func (g *Generator) Document(root reflect.Type, meta map[string]any) (map[string]any, *Messages) {
	g.defs, g.names = map[string]any{}, map[reflect.Type]string{}
	g.msgs = newMessages()
	doc := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema"}
	for k, v := range meta {
		doc[k] = v
	}
	doc["$ref"] = g.Ref(root)["$ref"]
	doc["$defs"] = g.defs
	return doc, g.msgs
}

// Define makes the definition called name, built by def at its location,
// unless it exists, and returns a reference to it.
func (g *Generator) Define(name string, def func(loc string) map[string]any) map[string]any {
	if _, done := g.defs[name]; !done {
		g.defs[name] = nil
		g.defs[name] = def("/$defs/" + name)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// Hint registers what the required property at loc is for, as Required
// does: "missing: " and hint.
func (g *Generator) Hint(loc, hint string) { g.msgs.hints[loc] = hint }

// SetFields registers the fields of the object at loc, in order, for the
// message about a field it does not have.
func (g *Generator) SetFields(loc string, names []string) { g.msgs.fields[loc] = names }

// Message registers m as what a broken keyword at loc says, such as
// "/$defs/Retry/properties/burst/minimum". A message that returns ""
// says nothing, and lets the keyword's causes speak.
func (g *Generator) Message(loc string, m Message) { g.msgs.at[loc] = m }

// Ref returns a reference to the definition of struct type t, making it
// first if needed.
func (g *Generator) Ref(t reflect.Type) map[string]any {
	name := g.defName(t)
	if _, done := g.defs[name]; !done {
		g.defs[name] = nil // against recursion
		g.defs[name] = g.object(t, "/$defs/"+name)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// defName names t's definition: its type name, qualified with its
// package's name outside the config packages, where kinds of target
// each have a type of the same name.
func (g *Generator) defName(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	n := t.Name()
	if !strings.Contains(t.PkgPath(), "/config") {
		n = path.Base(t.PkgPath()) + "." + n
	}
	for other, on := range g.names {
		if on == n && other != t {
			panic(fmt.Sprintf("schema: %s and %s would both be $defs/%s", t, other, n))
		}
	}
	g.names[t] = n
	return n
}

// Schema returns the schema of t, placed at loc.
func (g *Generator) Schema(t reflect.Type, loc string) map[string]any {
	if g.Custom != nil {
		if s, ok := g.Custom(g, t, loc); ok {
			return s
		}
	}
	if t.Implements(reflect.TypeFor[Schemer]()) {
		return reflect.Zero(t).Interface().(Schemer).JSONSchema(g, loc)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{g.Schema(t.Elem(), loc+"/anyOf/0"), map[string]any{"type": "null"}}}
	case reflect.Struct:
		return g.Ref(t)
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.Schema(t.Elem(), loc+"/additionalProperties")}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.Schema(t.Elem(), loc+"/items")}
	case reflect.String:
		// A YAML scalar such as 8080 or true is fine as a string.
		return map[string]any{"type": []any{"string", "number", "boolean"}}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint64:
		g.Message(loc+"/minimum", func(got any) string { return "expected a non-negative integer, got " + Describe(got) })
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	}
	panic("schema: no rule for " + t.String())
}

// field is a struct field as the file names it.
type field struct {
	key string
	f   reflect.StructField
	in  reflect.Type // the struct that declares it
}

// Fields returns the fields of struct type t as the file names them, in
// order, those of inline embedded structs in their place.
func Fields(t reflect.Type) []string {
	var out []string
	for _, f := range fields(t) {
		out = append(out, f.key)
	}
	return out
}

func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		key, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && strings.Contains(opts, "inline") {
			out = append(out, fields(f.Type)...)
			continue
		}
		if !f.IsExported() || key == "" || key == "-" {
			continue
		}
		out = append(out, field{key, f, t})
	}
	return out
}

// Required returns the fields of struct type t that its rules require.
func Required(t reflect.Type) []string {
	r := rulesOf(t)
	var out []string
	for _, name := range r.order {
		if r.fields[name].required {
			out = append(out, name)
		}
	}
	return out
}

// rulesOf collects the rules of t and of the inline structs it embeds.
func rulesOf(t reflect.Type) *Rules {
	r := &Rules{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			if f := t.Field(i); f.Anonymous && strings.Contains(f.Tag.Get("yaml"), "inline") {
				walk(f.Type)
			}
		}
		if ru, ok := reflect.Zero(t).Interface().(Ruler); ok {
			ru.Rules(r)
		}
	}
	walk(t)
	return r
}

func (g *Generator) object(t reflect.Type, loc string) map[string]any {
	rules := rulesOf(t)
	props := map[string]any{}
	var required []any
	fs := fields(t)
	for _, name := range rules.order {
		if !slices.ContainsFunc(fs, func(f field) bool { return f.key == name }) {
			panic(fmt.Sprintf("schema: %s has rules for %q, which is none of its fields", t, name))
		}
	}
	for _, f := range fs {
		ploc := loc + "/properties/" + f.key
		rule := rules.fields[f.key]
		ft := f.f.Type
		var s map[string]any
		if rule != nil && rule.required && ft.Kind() == reflect.Pointer {
			ft = ft.Elem() // a required value is never null
		}
		s = g.Schema(ft, ploc)
		if rule != nil {
			if rule.required {
				required = append(required, f.key)
				g.msgs.hints[ploc] = rule.hint
			}
			s = g.apply(s, rule, ploc)
		}
		if g.Docs != nil {
			if d := g.Docs(f.in, f.f.Name); d != "" {
				s = withDescription(s, d)
			}
		}
		props[f.key] = s
	}
	g.msgs.fields[loc] = Fields(t)
	def := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		def["required"] = required
	}
	if g.Docs != nil {
		if d := g.Docs(t, ""); d != "" {
			def["description"] = d
		}
	}
	return def
}

// apply adds the rules of f to s, the schema at loc.
func (g *Generator) apply(s map[string]any, f *Field, loc string) map[string]any {
	if inner, ok := s["anyOf"].([]any); ok && len(inner) == 2 {
		// A pointer: the rules are the value's, not the null's.
		inner[0] = g.apply(inner[0].(map[string]any), f, loc+"/anyOf/0")
		return s
	}
	if _, ref := s["$ref"]; ref && (f.items != nil || f.keys != nil || f.enum != nil || f.patterns != nil) {
		panic("schema: rules on a struct's fields go on the struct, at " + loc)
	}
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	if f.required {
		empty := func(any) string { return "must not be empty: " + f.hint }
		switch typeOf(out) {
		case "string":
			out["minLength"] = 1
			g.Message(loc+"/minLength", empty)
		case "array":
			out["minItems"] = 1
			g.Message(loc+"/minItems", empty)
		case "object":
			if _, ok := out["additionalProperties"].(map[string]any); ok {
				out["minProperties"] = 1
				g.Message(loc+"/minProperties", empty)
			}
		}
	}
	if f.enum != nil {
		out["enum"] = toAny(f.enum)
		out["type"] = "string"
		g.Message(loc+"/enum", f.enumMsg)
	}
	for i, p := range f.patterns {
		if i == 0 {
			out["pattern"] = p.re
			g.Message(loc+"/pattern", p.msg)
			continue
		}
		all, _ := out["allOf"].([]any)
		g.Message(fmt.Sprintf("%s/allOf/%d/pattern", loc, len(all)), p.msg)
		out["allOf"] = append(all, map[string]any{"pattern": p.re})
	}
	if f.lo != nil {
		out["minimum"] = *f.lo
		g.Message(loc+"/minimum", f.rangeMsg)
	}
	if f.hi != nil {
		out["maximum"] = *f.hi
		g.Message(loc+"/maximum", f.rangeMsg)
	}
	if len(f.except) > 0 {
		ex := make([]any, len(f.except))
		for i, x := range f.except {
			ex[i] = x
		}
		out["not"] = map[string]any{"enum": ex}
		g.Message(loc+"/not", f.rangeMsg)
	}
	if f.count != nil {
		out["minItems"], out["maxItems"] = f.count[0], f.count[1]
		g.Message(loc+"/minItems", f.countMsg)
		g.Message(loc+"/maxItems", f.countMsg)
	}
	if f.constMsg != nil {
		out["const"] = f.constant
		g.Message(loc+"/const", f.constMsg)
	}
	if f.keys != nil {
		// Keys are checked with patternProperties rather than
		// propertyNames, whose errors do not say reliably where they are;
		// the values' rules, if any, go with the pattern.
		if len(f.keys.patterns) != 1 || typeOf(out) != "object" {
			panic("schema: a map's keys take one pattern, at " + loc)
		}
		p := f.keys.patterns[0]
		values := out["additionalProperties"].(map[string]any)
		if f.items != nil {
			values = g.apply(values, f.items, loc+"/patternProperties/"+pointerToken(p.re))
		}
		out["patternProperties"] = map[string]any{p.re: values}
		out["additionalProperties"] = false
		g.msgs.keys[loc] = p.msg
	} else if f.items != nil {
		key := "items"
		if typeOf(out) == "object" {
			key = "additionalProperties"
		}
		out[key] = g.apply(out[key].(map[string]any), f.items, loc+"/"+key)
	}
	return out
}

// pointerToken escapes s as one token of a JSON pointer.
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		if slices.Contains(t, any("string")) {
			return "string"
		}
	}
	return ""
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// withDescription adds a description beside a $ref (allowed in 2020-12)
// or to the schema itself.
func withDescription(s map[string]any, d string) map[string]any {
	out := map[string]any{"description": d}
	for k, v := range s {
		if k != "description" {
			out[k] = v
		}
	}
	return out
}
