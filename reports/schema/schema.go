package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// ReportV1 is the JSON Schema of idemcheck.report/v1.
//
//go:embed report.v1.json
var ReportV1 []byte

// Errors lists every way a document violates a schema.
type Errors []string

func (e Errors) Error() string {
	return fmt.Sprintf("%d schema violation(s):\n  %s", len(e), strings.Join(e, "\n  "))
}

// ValidateReport checks a JSON report against ReportV1.
func ValidateReport(doc []byte) error {
	return Validate(ReportV1, doc)
}

// Validate checks the JSON document doc against the JSON Schema schema
// and returns Errors with every violation, or nil.
func Validate(schema, doc []byte) error {
	var root map[string]any
	if err := decode(schema, &root); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var v any
	if err := decode(doc, &v); err != nil {
		return fmt.Errorf("document: %w", err)
	}
	c := &checker{root: root}
	c.check("$", root, v)
	if len(c.errs) > 0 {
		return c.errs
	}
	return nil
}

func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

type checker struct {
	root map[string]any
	errs Errors
}

func (c *checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
}

var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "format": true}

func (c *checker) check(path string, s map[string]any, v any) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "$ref", "type", "enum", "minimum", "required", "properties", "additionalProperties", "items":
		default:
			if !annotations[k] {
				c.fail(path, "the schema uses %q, which this validator does not know", k)
			}
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		target, err := c.resolve(ref)
		if err != nil {
			c.fail(path, "%v", err)
			return
		}
		c.check(path, target, v)
	}
	if t, ok := s["type"]; ok && !c.checkType(path, t, v) {
		return // the other keywords would only repeat the mismatch
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if equal(x, v) {
				found = true
				break
			}
		}
		if !found {
			c.fail(path, "%s is not one of %s", show(v), show(e))
		}
	}
	if m, ok := s["minimum"].(json.Number); ok {
		if n, isNum := v.(json.Number); isNum && cmpNum(n, m) < 0 {
			c.fail(path, "%s is less than the minimum %s", n, m)
		}
	}
	obj, isObj := v.(map[string]any)
	if isObj {
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, _ := r.(string); name != "" {
					if _, has := obj[name]; !has {
						c.fail(path, "required field %q is missing", name)
					}
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(obj))
		for k := range obj {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if ps, ok := props[k].(map[string]any); ok {
				c.check(path+"."+k, ps, obj[k])
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					c.fail(path, "field %q is not in the schema", k)
				}
			case map[string]any:
				c.check(path+"."+k, ap, obj[k])
			}
		}
	}
	if arr, isArr := v.([]any); isArr {
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range arr {
				c.check(fmt.Sprintf("%s[%d]", path, i), items, x)
			}
		}
	}
}

func (c *checker) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only local references into $defs are supported", ref)
	}
	defs, _ := c.root["$defs"].(map[string]any)
	s, ok := defs[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q: no such definition", ref)
	}
	return s, nil
}

// checkType reports whether v has the type (or one of the types) t.
func (c *checker) checkType(path string, t, v any) bool {
	var types []string
	switch x := t.(type) {
	case string:
		types = []string{x}
	case []any:
		for _, y := range x {
			if s, ok := y.(string); ok {
				types = append(types, s)
			}
		}
	}
	got := typeOf(v)
	for _, want := range types {
		if want == got || (want == "number" && got == "integer") {
			return true
		}
	}
	c.fail(path, "expected %s, got %s %s", strings.Join(types, " or "), got, short(show(v)))
	return false
}

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
		if _, ok := new(big.Int).SetString(x.String(), 10); ok {
			return "integer"
		}
		if f, ok := new(big.Float).SetString(x.String()); ok && f.IsInt() {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func cmpNum(a, b json.Number) int {
	x, _ := new(big.Float).SetString(a.String())
	y, _ := new(big.Float).SetString(b.String())
	if x == nil || y == nil {
		return 0
	}
	return x.Cmp(y)
}

func equal(a, b any) bool {
	if x, ok := a.(json.Number); ok {
		y, ok := b.(json.Number)
		return ok && cmpNum(x, y) == 0
	}
	return show(a) == show(b)
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
