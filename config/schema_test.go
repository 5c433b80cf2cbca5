package config_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/openapi"
)

var update = flag.Bool("update", false, "rewrite idemcheck.schema.json from the config structs")

// TestSchemaIsGeneratedFromTheStructs: the committed schema is what the
// structs and their doc comments give today; -update rewrites it.
func TestSchemaIsGeneratedFromTheStructs(t *testing.T) {
	got := generateSchema(t)
	if *update {
		require.NoError(t, os.WriteFile("idemcheck.schema.json", got, 0o644))
	}
	assert.Equal(t, string(got), string(config.Schema()), "the schema is stale: go test ./config -run TestSchema -update")
}

// TestSchemaPropertiesMatchTheYAMLFields walks the structs and the
// committed schema side by side: every yaml field is a property, and
// every property a yaml field, at every level.
func TestSchemaPropertiesMatchTheYAMLFields(t *testing.T) {
	var schema map[string]any
	require.NoError(t, json.Unmarshal(config.Schema(), &schema))
	defs := schema["$defs"].(map[string]any)
	var walk func(where string, typ reflect.Type, s map[string]any)
	seen := map[reflect.Type]bool{}
	walk = func(where string, typ reflect.Type, s map[string]any) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[config.FaultSpec]() || seen[typ] {
			return
		}
		seen[typ] = true
		def, ok := defs[typ.Name()].(map[string]any)
		require.True(t, ok, "%s: no $defs/%s", where, typ.Name())
		props, _ := def["properties"].(map[string]any)
		var fields, keys []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			fields = append(fields, name)
			walk(where+"."+name, f.Type, s)
		}
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(fields)
		slices.Sort(keys)
		assert.Equal(t, fields, keys, "%s (%s): the schema's properties and the yaml fields differ", where, typ.Name())
	}
	walk("file", reflect.TypeFor[config.File](), schema)
	assert.Equal(t, map[string]any{"$ref": "#/$defs/File"}, map[string]any{"$ref": schema["$ref"]})
}

// TestSchemaAcceptsEveryExample validates every configuration in the
// repository, and the ones init writes, against the schema; and refuses
// a few wrong ones, so that it is known to check something.
func TestSchemaAcceptsEveryExample(t *testing.T) {
	sch := compileSchema(t)
	var files []string
	require.NoError(t, filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	}))
	checked := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		doc := yamlAsJSON(t, data)
		m, ok := doc.(map[string]any)
		if !ok || m["targets"] == nil || m["version"] == nil {
			continue // not an idemcheck configuration (an OpenAPI file, a workflow)
		}
		if _, err := config.Parse(path, data); err != nil {
			continue // an invalid one on purpose
		}
		checked++
		assert.NoError(t, sch.Validate(doc), path)
	}
	assert.GreaterOrEqual(t, checked, 2, "examples/idemcheck.yaml and config/testdata/valid.yaml at least")

	starter := config.Starter("ordertool", []string{"./ordertool", "--store", "jsonl"}, []string{"create-order", "refund"},
		"Usage: ordertool [--idempotency-key KEY] [--dry-run]\n  $STATE_DIR  $PAYMENTS_URL\n")
	assert.NoError(t, sch.Validate(yamlAsJSON(t, []byte(starter))), "what idemcheck init writes")
	api, err := openapi.Load(context.Background(), "../examples/orders/openapi.yaml")
	require.NoError(t, err)
	generated := openapi.Generate(api, openapi.Options{Name: "orders", Source: "openapi.yaml"}).YAML
	assert.NoError(t, sch.Validate(yamlAsJSON(t, []byte(generated))), "what idemcheck init --openapi writes")

	for _, bad := range []string{
		"version: 1\ntargets: [{name: a, kind: http, url: x, operations: [{name: o, mutating: true, method: POST, path: /}]}]\ncolour: red\n",
		"version: 1\ntargets: [{name: a, kind: grpc}]\n",
		"version: 1\ntargets: [{name: a, kind: http, timeout: 10}]\n",
		"version: 1\ntargets: [{name: a, kind: http}]\nfaults: [{timeout: 1s}]\n",
	} {
		assert.Error(t, sch.Validate(yamlAsJSON(t, []byte(bad))), bad)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(config.Schema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(config.SchemaURL, doc))
	sch, err := c.Compile(config.SchemaURL)
	require.NoError(t, err)
	return sch
}

// yamlAsJSON decodes YAML into the values JSON would give, as a YAML
// language server sees the file.
func yamlAsJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return out
}

// generateSchema builds the schema from the structs, by reflection, and
// their doc comments, read from the package's source.
func generateSchema(t *testing.T) []byte {
	t.Helper()
	g := &schemaGen{docs: fieldDocs(t), defs: map[string]any{}}
	root := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         config.SchemaURL,
		"title":       "idemcheck configuration",
		"description": "An idemcheck configuration file (version 1). Top-level keys that start with x- are ignored, to hold YAML anchors.",
		"$ref":        "#/$defs/File",
		"$defs":       g.defs,
	}
	g.schema(reflect.TypeFor[config.File]())
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(root))
	return b.Bytes()
}

type schemaGen struct {
	docs map[string]string // "Type.Field" and "Type" → doc comment
	defs map[string]any
}

// required lists the fields a file must write, by struct.
var required = map[string][]string{
	"File":        {"version", "targets"},
	"Target":      {"name", "kind"},
	"Operation":   {"name", "mutating"},
	"Event":       {"name", "path", "body"},
	"Start":       {"command"},
	"MCPTool":     {"name"},
	"Build":       {"binary"},
	"ObserveHTTP": {"path"},
	"ObserveSQL":  {"dsn", "query"},
}

// enums are the values some fields may take.
func enums() map[string][]string {
	return map[string][]string{
		"Target.kind":      {config.KindHTTP, config.KindCLI, config.KindWebhook, config.KindContainer, config.KindMCP},
		"Operation.method": {"GET", "POST", "PUT", "PATCH", "DELETE"},
		"Signature.scheme": config.SignatureSchemes,
		"Checks.only":      config.KnownChecks,
		"Checks.skip":      config.KnownChecks,
	}
}

var durationSchema = map[string]any{
	"type":        "string",
	"pattern":     `^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`,
	"description": "A duration: a number and a unit (ns, us, ms, s, m, h), such as \"250ms\" or \"10s\"; at most 24h.",
}

func (g *schemaGen) schema(typ reflect.Type) map[string]any {
	switch typ {
	case reflect.TypeFor[config.Duration]():
		return durationSchema
	case reflect.TypeFor[config.FaultSpec]():
		name := map[string]any{"type": "string", "enum": config.KnownFaults}
		return map[string]any{
			"description": "A fault: its name, or a mapping with its name and settings, such as {name: client-timeout, timeout: 300ms}.",
			"anyOf": []any{name, map[string]any{
				"type": "object", "properties": map[string]any{"name": name}, "required": []string{"name"},
			}},
		}
	}
	switch typ.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{g.schema(typ.Elem()), map[string]any{"type": "null"}}}
	case reflect.Struct:
		name := typ.Name()
		if _, done := g.defs[name]; !done {
			g.defs[name] = nil // a placeholder against recursion
			props := map[string]any{}
			for i := range typ.NumField() {
				f := typ.Field(i)
				key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if !f.IsExported() || key == "" || key == "-" {
					continue
				}
				s := g.schema(f.Type)
				if vals, ok := enums()[name+"."+key]; ok {
					s = withEnum(s, vals)
				}
				if d := g.docs[name+"."+f.Name]; d != "" {
					s = withDescription(s, d)
				}
				props[key] = s
			}
			def := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if name == "File" {
				def["patternProperties"] = map[string]any{"^x-": map[string]any{}}
			}
			if r := required[name]; r != nil {
				def["required"] = r
			}
			if d := g.docs[name]; d != "" {
				def["description"] = d
			}
			g.defs[name] = def
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(typ.Elem())}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.schema(typ.Elem())}
	case reflect.String:
		// Parse takes any scalar as a string (port: 8080), as YAML reads it.
		return map[string]any{"type": []string{"string", "number", "boolean"}}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	}
	panic("schema: no rule for " + typ.String())
}

// withEnum puts the values on s, or on its items for a list.
func withEnum(s map[string]any, vals []string) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	if items, ok := out["items"].(map[string]any); ok {
		out["items"] = withEnum(items, vals)
		return out
	}
	out["enum"] = vals
	out["type"] = "string"
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

// fieldDocs reads the doc comments of the package's types and fields.
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	require.NoError(t, err)
	out := map[string]string{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					typeDoc := ts.Doc
					if typeDoc == nil {
						typeDoc = gd.Doc
					}
					out[ts.Name.Name] = firstParagraph(typeDoc)
					for _, fld := range st.Fields.List {
						for _, n := range fld.Names {
							out[ts.Name.Name+"."+n.Name] = firstParagraph(fld.Doc)
						}
					}
				}
			}
		}
	}
	return out
}

// firstParagraph is a doc comment's first paragraph, on one line.
func firstParagraph(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	text := cg.Text()
	if i := strings.Index(text, "\n\n"); i >= 0 {
		text = text[:i]
	}
	return strings.Join(strings.Fields(text), " ")
}
