package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ReportV1 is the JSON Schema of idemcheck.report/v1.
//
//go:embed report.v1.json
var ReportV1 []byte

// Errors lists every way a document violates a schema, one line each,
// with where in the document: `$.targets[0].score: expected integer, got
// string "3"`.
type Errors []string

func (e Errors) Error() string {
	return fmt.Sprintf("%d schema violation(s):\n  %s", len(e), strings.Join(e, "\n  "))
}

// reportV1 is ReportV1 compiled, once.
var reportV1 = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(ReportV1) })

// ValidateReport checks a JSON report against ReportV1.
func ValidateReport(doc []byte) error {
	sch, err := reportV1()
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return validate(sch, doc)
}

// Validate checks the JSON document doc against the JSON Schema schema
// (draft 2020-12 unless the schema says otherwise) and returns Errors with
// every violation, or nil. A schema that is not valid JSON Schema, or
// that refers to anything outside itself, is an error of its own.
func Validate(schema, doc []byte) error {
	sch, err := compile(schema)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return validate(sch, doc)
}

// schemaURL is where a schema is placed for compiling; a reference that
// leaves the schema resolves beside it, where nothing is loaded.
const schemaURL = "mem:///schema.json"

// noLoader refuses every document outside the schema being compiled.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: only references within the schema itself are supported (into $defs, say); nothing is loaded from elsewhere", url)
}

func compile(schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

func validate(sch *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("document: %w", err)
	}
	err = sch.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var errs Errors
	collect(ve, v, &errs)
	if len(errs) == 0 { // a failure without a leaf: say it whole
		errs = Errors{ve.Error()}
	}
	return errs
}

// printer writes the library's messages for the kinds of violation this
// package does not phrase itself.
var printer = message.NewPrinter(language.English)

// collect appends one line per leaf violation of ve, in the library's
// order (which follows the schema's keywords and the document's fields).
func collect(ve *jsonschema.ValidationError, doc any, errs *Errors) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collect(c, doc, errs)
		}
		return
	}
	path, v := locate(doc, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*errs = append(*errs, fmt.Sprintf("%s: required field %q is missing", path, name))
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*errs = append(*errs, fmt.Sprintf("%s: field %q is not in the schema", path, name))
		}
	case *kind.Type:
		*errs = append(*errs, fmt.Sprintf("%s: expected %s, got %s %s", path, strings.Join(nullLast(k.Want), " or "), typeOf(v), short(show(v))))
	case *kind.Enum:
		*errs = append(*errs, fmt.Sprintf("%s: %s is not one of %s", path, show(v), show(k.Want)))
	case *kind.Minimum:
		*errs = append(*errs, fmt.Sprintf("%s: %s is less than the minimum %s", path, show(v), k.Want.RatString()))
	default:
		*errs = append(*errs, fmt.Sprintf("%s: %s", path, ve.ErrorKind.LocalizedString(printer)))
	}
}

// locate follows the instance location through doc and returns it as a
// path ("$.targets[0].score") with the value found there.
func locate(doc any, at []string) (string, any) {
	var b strings.Builder
	b.WriteString("$")
	v := doc
	for _, tok := range at {
		switch x := v.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				fmt.Fprintf(&b, "[%s]", tok)
				v = nil
				continue
			}
			fmt.Fprintf(&b, "[%d]", i)
			v = x[i]
		case map[string]any:
			b.WriteString("." + tok)
			v = x[tok]
		default:
			b.WriteString("." + tok)
			v = nil
		}
	}
	return b.String(), v
}

// nullLast puts "null" after the other types: "integer or null".
func nullLast(types []string) []string {
	out := make([]string, 0, len(types))
	null := false
	for _, t := range types {
		if t == "null" {
			null = true
			continue
		}
		out = append(out, t)
	}
	if null {
		out = append(out, "null")
	}
	return out
}

// typeOf names the JSON type of v, "integer" for a number without a
// fraction.
func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
