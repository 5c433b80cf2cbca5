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
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
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
// every property a yaml field, at every level, for the file, every kind
// of target and every fake.
func TestSchemaPropertiesMatchTheYAMLFields(t *testing.T) {
	var schema map[string]any
	require.NoError(t, json.Unmarshal(config.Schema(), &schema))
	defs := schema["$defs"].(map[string]any)
	var walk func(where string, typ reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(where string, typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[config.FaultSpec]() || seen[typ] {
			return
		}
		seen[typ] = true
		def, ok := defs[defName(typ)].(map[string]any)
		require.True(t, ok, "%s: no $defs/%s", where, defName(typ))
		props, _ := def["properties"].(map[string]any)
		var keys []string
		fields := yamlFields(typ)
		for _, f := range fields {
			walk(where+"."+f.name, f.typ)
		}
		for k := range props {
			keys = append(keys, k)
		}
		var names []string
		for _, f := range fields {
			names = append(names, f.name)
		}
		slices.Sort(names)
		slices.Sort(keys)
		assert.Equal(t, names, keys, "%s (%s): the schema's properties and the yaml fields differ", where, typ.Name())
	}
	walk("file", reflect.TypeFor[config.File]())
	reg := config.Builtin()
	for _, k := range reg.Kinds {
		walk("targets["+k.Name+"]", reflect.TypeOf(k.New()))
	}
	for _, d := range reg.Fakes {
		walk("fakes."+d.Name, reflect.TypeOf(d.New()))
	}
	assert.Equal(t, map[string]any{"$ref": "#/$defs/File"}, map[string]any{"$ref": schema["$ref"]})
}

type yamlField struct {
	name string
	typ  reflect.Type
}

// yamlFields are a struct's fields by their yaml names, inline ones
// flattened.
func yamlFields(typ reflect.Type) []yamlField {
	var out []yamlField
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && strings.Contains(opts, "inline"):
			out = append(out, yamlFields(f.Type)...)
		case f.IsExported() && name != "" && name != "-":
			if f.Type == reflect.TypeFor[[]config.Target]() || f.Type == reflect.TypeFor[config.Fakes]() {
				out = append(out, yamlField{name, reflect.TypeFor[int]()})
				continue
			}
			out = append(out, yamlField{name, f.Type})
		}
	}
	return out
}

// defName is the name of a struct's definition in the schema.
func defName(typ reflect.Type) string {
	if strings.Contains(typ.PkgPath(), "/config") {
		return typ.Name()
	}
	return filepath.Base(typ.PkgPath()) + "." + typ.Name()
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
	assert.ErrorContains(t, sch.Validate(yamlAsJSON(t, []byte(starter))), "/mutating", "what idemcheck init writes is refused at its TODOs, as Parse refuses it")
	filled := strings.ReplaceAll(starter, "mutating: null", "mutating: true")
	assert.NoError(t, sch.Validate(yamlAsJSON(t, []byte(filled))), "what idemcheck init writes, filled in")
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

// generateSchema builds the schema from the registry's structs, with the
// doc comments of their packages as descriptions.
func generateSchema(t *testing.T) []byte {
	t.Helper()
	docs := map[string]string{}
	var read func(typ reflect.Type)
	done := map[string]bool{}
	read = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.PkgPath() == "" || done[typ.PkgPath()] {
			return
		}
		done[typ.PkgPath()] = true
		dir := filepath.Join("..", strings.TrimPrefix(typ.PkgPath(), module))
		packageDocs(t, dir, typ.PkgPath(), docs)
	}
	read(reflect.TypeFor[config.File]())
	read(reflect.TypeFor[config.Duration]())
	reg := config.Builtin()
	for _, k := range reg.Kinds {
		read(reflect.TypeOf(k.New()))
		read(reflect.TypeFor[httpconfig.Fields]())
	}
	for _, d := range reg.Fakes {
		read(reflect.TypeOf(d.New()))
	}
	return reg.Document(func(typ reflect.Type, field string) string {
		key := typ.PkgPath() + "." + typ.Name()
		if field != "" {
			key += "." + field
		}
		return docs[key]
	})
}

const module = "github.com/idemcheck/idemcheck/"

// packageDocs reads the doc comments of the struct types and fields of
// the package in dir, by "PKGPATH.Type" and "PKGPATH.Type.Field".
func packageDocs(t *testing.T, dir, pkgPath string, out map[string]string) {
	t.Helper()
	for _, f := range parseSources(t, dir, parser.ParseComments) {
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
				key := pkgPath + "." + ts.Name.Name
				out[key] = firstParagraph(typeDoc)
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						out[key+"."+n.Name] = firstParagraph(fld.Doc)
					}
				}
			}
		}
	}
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

// parseSources parses the non-test Go files of the package in dir.
func parseSources(t *testing.T, dir string, mode parser.Mode) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, mode)
		require.NoError(t, err)
		files = append(files, f)
	}
	return files
}
