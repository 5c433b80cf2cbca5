package docs_test

import (
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

// configurationPage is reference/configuration.md: every section and
// field of the configuration file, from its JSON Schema (config.Schema),
// with the defaults that config.Parse fills in.
func configurationPage(t *testing.T) string {
	d := readSchema(t, config.Schema())
	var checkIDs []string
	for _, c := range harness.Checks() {
		checkIDs = append(checkIDs, c.ID)
	}
	faultNames := config.Builtin().Faults.Names()
	d.known = func(values []string) string {
		switch {
		case sameSet(values, checkIDs):
			return "a [check id](checks.md)"
		case sameSet(values, faultNames):
			return "a [fault name](faults.md)"
		}
		return ""
	}
	defaults := parsedDefaults(t)
	if defaults["File.faults"] != "" {
		defaults["File.faults"] = "the [default set](faults.md)"
	}

	var b strings.Builder
	b.WriteString("# Configuration\n\n")
	fmt.Fprintf(&b, "%s\n\n", description(d.root))
	b.WriteString("Every section of the file, from its JSON Schema, [config/idemcheck.schema.json](../../config/idemcheck.schema.json) " +
		"(`config.Schema()` from Go), with the defaults `idemcheck run` fills in. How to write one — placeholders, " +
		"secrets, relative paths, a complete example — is in [Writing a configuration](../guides/configuration.md). " +
		"`idemcheck run` checks more than the schema says (placeholders, which fields go with which kind, loopback hosts) " +
		"and reports every problem with its `file:line:column` and field.\n\n")
	b.WriteString("A default that depends on the kind of target names the kinds it applies to.\n\n")
	root := d.defs["File"].(map[string]any)
	names := []string{"File"}
	for _, name := range d.order(root) {
		if name != "File" {
			names = append(names, name)
		}
	}
	for _, name := range names {
		def, _ := d.defs[name].(map[string]any)
		fmt.Fprintf(&b, "## %s\n\n", name)
		if desc := description(def); desc != "" {
			b.WriteString(desc + "\n\n")
		}
		var rows [][]string
		for _, f := range fields("", def) {
			def := defaults[name+"."+f.path]
			desc := description(f.schema)
			if def != "" {
				desc = dropDefaultSentence(desc)
			}
			if f.required {
				def = "required"
			}
			rows = append(rows, []string{code(f.path), d.typeOf(f.schema), def, desc})
		}
		b.WriteString(table([]string{"field", "type", "default", "description"}, rows))
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// defaultsFile is a configuration that leaves out everything it may, in
// every kind of target and section, so that what config.Parse fills in is
// each field's default. The labels say which targets a default is for.
const defaultsFile = `version: 1
fakes: {payments: {}, email: {}, webhooks: {}}
retry: {}
targets:
  - {name: http, kind: http, url: "http://127.0.0.1:{{port}}",
     start: {command: [./server]}, dry_run: {query: dry_run},
     observe: [{http: {path: "/v1/orders?search={{marker}}"}}, {sql: {dsn: "sqlite:orders.db", query: "SELECT id FROM orders WHERE note = {{marker}}"}}],
     operations: [{name: op, mutating: true, method: POST, path: /, body: "{{marker}} {{input.s}}", inputs: {s: {string: {}}}}]}
  - {name: remote, kind: http, url: "https://api.example.com", allow_remote: true,
     operations: [{name: op, mutating: true, method: POST, path: /, body: "{{marker}}"}]}
  - {name: cli, kind: cli, command: [./tool],
     operations: [{name: op, mutating: true, args: [op, "{{marker}}"]}]}
  - {name: webhook, kind: webhook, url: "http://127.0.0.1:8080", signature: {secret: whsec_test},
     events: [{name: ev, path: /hooks, body: '{"id":"{{key}}","m":"{{marker}}"}'}]}
  - {name: container, kind: container, build: {binary: ./server}, cmd: [--listen, "127.0.0.1:{{port}}"],
     operations: [{name: op, mutating: true, method: POST, path: /, body: "{{marker}}"}]}
  - {name: mcp, kind: mcp, command: [./server], tools: [{name: tool}]}
`

// labels name the targets of defaultsFile in the page.
var labels = map[string]string{"remote": "http with allow_remote"}

// given are the fields defaultsFile sets itself, by definition and field:
// their values are not defaults. A kind of target's fields are given by
// field, whatever the kind.
var given = map[string]bool{
	"File.version": true, "File.fakes": true, "Start.command": true, "DryRun.query": true, "ObserveHTTP.path": true, "ObserveSQL.dsn": true,
	"ObserveSQL.query": true, "Operation.name": true, "Operation.mutating": true, "Operation.method": true,
	"Operation.path": true, "Operation.body": true, "Operation.inputs": true,
	"cli.OperationSection.name": true, "cli.OperationSection.mutating": true, "cli.OperationSection.args": true,
	"Input.string": true, "webhookconfig.SignatureSection.secret": true, "webhookconfig.EventSection.name": true,
	"webhookconfig.EventSection.path": true, "webhookconfig.EventSection.body": true,
	"container.BuildSection.binary": true, "mcpconfig.ToolSection.name": true, "Observer.http": true, "Observer.sql": true,
	"Fakes.payments": true, "Fakes.email": true, "Fakes.webhooks": true,
	// Made from another field, as its description says.
	"container.BuildSection.name": true,
}

// givenInTargets are the fields of a target defaultsFile sets itself.
var givenInTargets = map[string]bool{
	"name": true, "kind": true, "url": true, "command": true, "start": true, "dry_run": true, "observe": true,
	"operations": true, "allow_remote": true, "signature": true, "events": true, "build": true, "tools": true, "cmd": true,
}

// isGiven says whether defaultsFile sets the field key names itself.
func isGiven(key string) bool {
	i := strings.LastIndex(key, ".")
	if strings.HasSuffix(key[:i], ".Section") {
		return givenInTargets[key[i+1:]]
	}
	return given[key]
}

// defName is the name of type t's definition in the schema: its type
// name, qualified with its package's outside the config packages.
func defName(t reflect.Type) string {
	if strings.Contains(t.PkgPath(), "/config") {
		return t.Name()
	}
	return path.Base(t.PkgPath()) + "." + t.Name()
}

// parsedDefaults parses defaultsFile and returns, by "Type.field", the
// value config.Parse filled in, naming the targets when they differ.
func parsedDefaults(t *testing.T) map[string]string {
	f, err := config.Parse("defaults.yaml", []byte(defaultsFile))
	require.NoError(t, err)
	type seen struct {
		value string
		where []string
	}
	found := map[string][]seen{}
	var walk func(v reflect.Value, where string, record bool)
	walk = func(v reflect.Value, where string, record bool) {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Slice:
			for i := range v.Len() {
				w := where
				switch e := v.Index(i).Interface().(type) {
				case config.Target:
					w = e.Base().Name
					if l := labels[w]; l != "" {
						w = l
					}
				case config.Observer:
					w = "sql"
					if e.HTTP != nil {
						w = "http"
					}
				}
				walk(v.Index(i), w, record)
			}
			return
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k), where, record)
			}
			return
		case reflect.Struct:
		default:
			return
		}
		def := defName(v.Type())
		for _, sf := range inlineFields(v) {
			name, _, _ := strings.Cut(sf.field.Tag.Get("yaml"), ",")
			fv := sf.value
			key := def + "." + name
			shownWhole := false
			if record && !isGiven(key) && !fv.IsZero() {
				// A section's default is shown whole when it is short
				// ({json: effect}); else field by field in its own section.
				if shown := show(t, fv); shown != "" && (!composite(sf.field.Type) || whole[elem(sf.field.Type).Name()]) {
					shownWhole = composite(sf.field.Type)
					list := found[key]
					if n := len(list); n > 0 && list[n-1].value == shown {
						list[n-1].where = appendOnce(list[n-1].where, where)
					} else {
						list = append(list, seen{shown, []string{where}})
					}
					found[key] = list
				}
			}
			walk(fv, where, record && !shownWhole)
		}
	}
	walk(reflect.ValueOf(f).Elem(), "", true)
	ofKind := map[string]int{} // targets of each kind
	for _, tg := range f.Targets {
		ofKind[tg.Base().Kind]++
	}
	out := map[string]string{}
	for key, list := range found {
		var parts []string
		for _, s := range list {
			p := code(s.value)
			if len(list) > 1 || (strings.Contains(key, ".Section.") && len(s.where) < ofKind[strings.Split(key, ".")[0]]) {
				p += " (" + strings.Join(s.where, ", ") + ")"
			}
			parts = append(parts, p)
		}
		out[key] = strings.Join(parts, "; ")
	}
	return out
}

// structField is a field of a struct value and its declaration.
type structField struct {
	field reflect.StructField
	value reflect.Value
}

// inlineFields are the fields of struct v by their yaml names, those of
// inline embedded structs (a target's common fields) in their place.
func inlineFields(v reflect.Value) []structField {
	var out []structField
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		switch {
		case sf.Anonymous && strings.Contains(opts, "inline"):
			out = append(out, inlineFields(v.Field(i))...)
		case sf.IsExported() && name != "" && name != "-":
			out = append(out, structField{sf, v.Field(i)})
		}
	}
	return out
}

// composite is a type whose default is told field by field, in its own
// section: a struct, or a list or map of them.
func composite(t reflect.Type) bool {
	t = elem(t)
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[config.FaultSpec]()
}

// whole are the sections whose default is shown on the field that holds
// them, since they serve several fields with different defaults.
var whole = map[string]bool{"Locator": true, "Ready": true}

func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// show writes a value as it would be written in the file, in flow style.
func show(t *testing.T, v reflect.Value) string {
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() != reflect.Struct {
		return s.String()
	}
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Bool {
		return fmt.Sprint(v.Elem().Bool())
	}
	raw, err := yaml.Marshal(v.Interface())
	require.NoError(t, err)
	var doc any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	if s, ok := doc.(string); ok {
		return s
	}
	return flow(doc)
}

// flow writes a decoded YAML value in flow style: {json: effect}, [75].
func flow(v any) string {
	switch x := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			parts = append(parts, k+": "+flow(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = flow(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// defaultSentence is a description's sentence that names the default as
// a Go identifier: the default column says its value instead.
var defaultSentence = regexp.MustCompile(`\s*(?:Default:?|Zero or absent means|Zero means)(?: the JSON field)? (?:(?:\w+\.)?Default[A-Z]\w*(?:, (?:\w+\.)?Default[A-Z]\w*)*\)?|"[^"]*"|[^\s.;,]+)\.`)

func dropDefaultSentence(s string) string {
	return strings.TrimSpace(defaultSentence.ReplaceAllString(s, ""))
}
