package config

import (
	"bytes"
	_ "embed" // the schema file
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
)

// schemaJSON is the configuration file's JSON Schema as published, with
// the descriptions of the structs' doc comments. It is generated from the
// registry's structs (go generate ./config, or go test ./config -run
// TestSchema -update), and a test fails when it no longer matches them.
//
//go:embed idemcheck.schema.json
var schemaJSON []byte

//go:generate go test -run TestSchemaIsGeneratedFromTheStructs -update

// SchemaURL is where the schema is published, for the first line of a
// configuration file that editors with a YAML language server read:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/idemcheck/idemcheck/main/config/idemcheck.schema.json
const SchemaURL = "https://raw.githubusercontent.com/idemcheck/idemcheck/main/config/idemcheck.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the configuration
// file: every field, with its type and its documentation, and the values
// a field may take. Parse checks a file with the same schema, then checks
// by hand what a schema cannot say (placeholders, loopback hosts, rules
// across fields).
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Document returns the registry's schema as Schema publishes it; docs
// gives the descriptions (nil for none). The schema test writes Builtin's
// with the doc comments of the structs.
func (r *Registry) Document(docs func(t reflect.Type, field string) string) []byte {
	s, err := r.compile(docs)
	if err != nil {
		panic(err) // the generator's own output: a bug, found by any test
	}
	return s.Text()
}

var compiled sync.Map // key (registry's names) → *schema.Schema

// schema returns the registry's compiled schema, without descriptions,
// made once for registries that name the same things.
func (r *Registry) schema() (*schema.Schema, error) {
	key := r.cacheKey()
	if s, ok := compiled.Load(key); ok {
		return s.(*schema.Schema), nil
	}
	s, err := r.compile(nil)
	if err != nil {
		return nil, err
	}
	compiled.Store(key, s)
	return s, nil
}

// cacheKey names what the schema depends on.
func (r *Registry) cacheKey() string {
	var b strings.Builder
	for _, k := range r.Kinds {
		fmt.Fprintf(&b, "k:%s:%T;", k.Name, k.New())
	}
	for _, f := range r.Fakes {
		fmt.Fprintf(&b, "f:%s:%T;", f.Name, f.New())
	}
	fmt.Fprintf(&b, "faults:%v;checks:%v", r.Faults.Names(), KnownChecks)
	return b.String()
}

func (r *Registry) compile(docs func(t reflect.Type, field string) string) (*schema.Schema, error) {
	g := &schema.Generator{Docs: docs, Custom: r.custom}
	doc, msgs := g.Document(reflect.TypeFor[File](), map[string]any{
		"$id":         SchemaURL,
		"title":       "idemcheck configuration",
		"description": "An idemcheck configuration file (version 1). Top-level keys that start with x- are ignored, to hold YAML anchors.",
	})
	def := doc["$defs"].(map[string]any)["File"].(map[string]any)
	def["patternProperties"] = map[string]any{"^" + extensionPrefix: map[string]any{}}
	return schema.Compile(SchemaURL, doc, msgs, section.Formats()...)
}

// custom gives the schema of the types that depend on the registry: a
// target (one of its kinds), the fakes and a fault.
func (r *Registry) custom(g *schema.Generator, t reflect.Type, loc string) (map[string]any, bool) {
	switch t {
	case reflect.TypeFor[Target]():
		return g.Define("Target", r.targetSchema(g)), true
	case reflect.TypeFor[Fakes]():
		return g.Define("Fakes", r.fakesSchema(g)), true
	case reflect.TypeFor[FaultSpec]():
		return r.faultSchema(g, loc), true
	}
	return nil, false
}

// targetSchema is a target: its kind says which kind's definition
// applies; a target without a known kind is checked as the first kind.
func (r *Registry) targetSchema(g *schema.Generator) func(loc string) map[string]any {
	return func(loc string) map[string]any {
		names := r.kindNames()
		kinds := make([]any, len(names))
		docs := make([]string, len(names))
		for i, k := range r.Kinds {
			kinds[i] = k.Name
			docs[i] = fmt.Sprintf("%q: %s", k.Name, k.Doc)
		}
		supported := "supported kinds: " + strings.Join(names, ", ")
		g.Hint(loc+"/properties/kind", "say how to reach the target ("+supported+")")
		g.Message(loc+"/properties/kind/enum", func(got any) string {
			return fmt.Sprintf("unsupported kind %q (%s%s)", fmt.Sprint(got), schema.DidYouMean(fmt.Sprint(got), names), supported)
		})
		var all []any
		for i, k := range r.Kinds {
			ref := g.Ref(reflect.TypeOf(k.New()).Elem())
			cond := map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k.Name}}, "required": []any{"kind"}}
			if i == 0 {
				cond = map[string]any{"properties": map[string]any{"kind": map[string]any{"not": map[string]any{"enum": kinds[1:]}}}}
			}
			all = append(all, map[string]any{"if": cond, "then": ref})
		}
		return map[string]any{
			"description": "A system under test. Its kind says which fields it has.",
			"type":        "object",
			"required":    []any{"kind"},
			"properties": map[string]any{"kind": map[string]any{
				"type":        "string",
				"enum":        kinds,
				"description": "What the target is and how idemcheck reaches it: " + strings.Join(docs, "; ") + ".",
			}},
			"allOf": all,
		}
	}
}

// fakesSchema is the fakes section: one optional section per fake.
func (r *Registry) fakesSchema(g *schema.Generator) func(loc string) map[string]any {
	return func(loc string) map[string]any {
		props := map[string]any{}
		var names []string
		for _, d := range r.Fakes {
			s := map[string]any{"anyOf": []any{g.Ref(reflect.TypeOf(d.New()).Elem()), map[string]any{"type": "null"}}}
			var ph []string
			for _, e := range d.Endpoints {
				ph = append(ph, "{{fakes."+d.Name+"."+e.Placeholder+"}}")
			}
			s["description"] = fmt.Sprintf("The %s fake: %s; a target reaches it as %s.", d.Name, d.Summary, strings.Join(ph, " and "))
			props[d.Name] = s
			names = append(names, d.Name)
		}
		g.SetFields(loc, names)
		return map[string]any{
			"description":          "The downstream fakes the targets call, by name. A fake that is absent is not started.",
			"type":                 "object",
			"properties":           props,
			"additionalProperties": false,
		}
	}
}

// faultSchema is a fault: its name, or a mapping with its name and
// settings.
func (r *Registry) faultSchema(g *schema.Generator, loc string) map[string]any {
	known := r.Faults.Names()
	names := make([]any, len(known))
	for i, n := range known {
		names[i] = n
	}
	name := map[string]any{"type": "string", "enum": names}
	unknown := schema.Unknown("fault", known)
	silent := func(any) string { return "" }
	g.Message(loc+"/anyOf", func(got any) string {
		switch got.(type) {
		case string, map[string]any:
			return ""
		}
		return "expected a fault name, or a mapping such as {name: client-timeout, timeout: 300ms}, got " + schema.Describe(got)
	})
	g.Message(loc+"/anyOf/0/type", silent)
	g.Message(loc+"/anyOf/0/enum", unknown)
	g.Message(loc+"/anyOf/1/type", silent)
	g.Message(loc+"/anyOf/1/properties/name/enum", unknown)
	g.Message(loc+"/anyOf/1/properties/name/type", silent)
	g.Hint(loc+"/anyOf/1/properties/name", "name the fault (known faults: "+strings.Join(known, ", ")+")")
	return map[string]any{
		"description": "A fault: its name, or a mapping with its name and settings, such as {name: client-timeout, timeout: 300ms}.",
		"anyOf": []any{name, map[string]any{
			"type": "object", "properties": map[string]any{"name": name}, "required": []any{"name"},
		}},
	}
}
