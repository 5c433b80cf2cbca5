package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Messages are what the rules of a generated schema say when they are
// broken, by the location of their keyword in the schema.
type Messages struct {
	at     map[string]Message  // by keyword location
	hints  map[string]string   // required hints, by property location
	fields map[string][]string // field names in order, by object location
	keys   map[string]Message  // what an invalid key is, by map location
}

func newMessages() *Messages {
	return &Messages{at: map[string]Message{}, hints: map[string]string{}, fields: map[string][]string{}, keys: map[string]Message{}}
}

// Schema is a compiled schema that says what is wrong in the words of
// the rules it was generated from.
type Schema struct {
	sch  *jsonschema.Schema
	msgs *Messages
	text []byte
}

// Compile compiles doc, a Document, under url; formats are the custom
// formats its types use (see Format), asserted.
func Compile(url string, doc map[string]any, msgs *Messages, formats ...*jsonschema.Format) (*Schema, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, f := range formats {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(url, parsed); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{sch: sch, msgs: msgs, text: b.Bytes()}, nil
}

// Text returns the schema as indented JSON.
func (s *Schema) Text() []byte { return bytes.Clone(s.text) }

// Problem is one thing the schema refuses in an instance.
type Problem struct {
	// At is the location of the value at fault, as JSON pointer tokens;
	// for a field that is missing, the field's (its parent holds none).
	At []string
	// Key is true when the problem is the key At names, not its value
	// (a field no struct has): it is reported where the key is written.
	Key bool
	// Missing is true for a required field that is absent, Unknown for
	// a field the object does not have.
	Missing, Unknown bool
	// Msg says what is wrong and what to do.
	Msg string
}

// Explain explains a key that the object at "at" does not have; known
// are the object's fields, in order. Schema.Validate asks it, so that the
// caller can say more than "unknown" (such as the field's kind of
// target); atKey says whether the problem is the key, reported where the
// key is written, or its value.
type Explain func(at []string, key string, known []string) (msg string, atKey bool)

// Validate checks v (maps, slices and JSON scalars, such as
// jsonschema.UnmarshalJSON gives) and returns every problem, in the order
// the schema finds them, each once.
func (s *Schema) Validate(v any, unknown Explain) []Problem {
	err := s.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Msg: err.Error()}}
	}
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		k := strings.Join(p.At, "\x00") + "\x00" + p.Msg
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	s.walk(ve, v, unknown, add)
	// A value that is empty where one is required is said so; what else
	// it fails (a pattern) follows from it, and is left out.
	empty := map[string]bool{}
	for _, p := range out {
		if strings.HasPrefix(p.Msg, "must not be empty") {
			empty[strings.Join(p.At, "\x00")] = true
		}
	}
	kept := out[:0]
	for _, p := range out {
		if !empty[strings.Join(p.At, "\x00")] || strings.HasPrefix(p.Msg, "must not be empty") {
			kept = append(kept, p)
		}
	}
	return kept
}

// walk turns the error tree into problems: an error whose keyword has a
// message says it, and hides its causes; one without descends into them;
// a leaf without a message gets the generic message of its kind.
func (s *Schema) walk(e *jsonschema.ValidationError, root any, unknown Explain, add func(Problem)) {
	loc := fragment(e.SchemaURL)
	kw := ""
	if e.ErrorKind != nil {
		kw = strings.Join(e.ErrorKind.KeywordPath(), "/")
	}
	got := valueAt(root, e.InstanceLocation)
	at := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		if len(k.Want) == 1 && k.Want[0] == "null" {
			return // the other side of an optional value's anyOf
		}
		if hint, ok := s.msgs.hints[loc]; ok && got == nil {
			add(Problem{At: at, Msg: "must not be empty: " + hint})
			return
		}
	case *kind.Required:
		for _, m := range k.Missing {
			hint := s.msgs.hints[loc+"/properties/"+m]
			msg := "missing"
			if hint != "" {
				msg += ": " + hint
			}
			add(Problem{At: append(slices.Clone(at), m), Msg: msg, Missing: true})
		}
		return
	case *kind.Not:
		kw = "not" // the library gives it no keyword path
	case *kind.AdditionalProperties:
		if m, ok := s.msgs.keys[loc]; ok {
			for _, p := range k.Properties {
				add(Problem{At: append(slices.Clone(at), p), Msg: m(p)})
			}
			return
		}
		for _, p := range k.Properties {
			msg, atKey := unknown(at, p, s.msgs.fields[loc])
			add(Problem{At: append(slices.Clone(at), p), Key: atKey, Unknown: true, Msg: msg})
		}
		return
	}
	if m, ok := s.msgs.at[loc+"/"+kw]; ok {
		if msg := m(got); msg != "" {
			add(Problem{At: at, Msg: msg})
			return
		}
		for _, c := range e.Causes {
			s.walk(c, root, unknown, add)
		}
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			s.walk(c, root, unknown, add)
		}
		return
	}
	add(Problem{At: at, Msg: generic(e, got)})
}

// generic is the message of an error whose keyword has none of its own.
func generic(e *jsonschema.ValidationError, got any) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		var want []string
		for _, w := range k.Want {
			want = append(want, typeNames[w])
		}
		if slices.Contains(k.Want, "string") {
			want = []string{typeNames["string"]} // a YAML scalar of any kind is one
		}
		return fmt.Sprintf("expected %s, got %s", strings.Join(want, " or "), Describe(got))
	case *kind.Format:
		if k.Err != nil {
			return k.Err.Error()
		}
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		return fmt.Sprintf("unknown value %s (expected one of %s)", Describe(got), strings.Join(want, ", "))
	}
	// The library's own words, without the location it puts first.
	_, msg, _ := strings.Cut((&jsonschema.ValidationError{ErrorKind: e.ErrorKind}).Error(), ": ")
	return msg
}

var typeNames = map[string]string{
	"integer": "an integer",
	"number":  "a number",
	"boolean": "a boolean (true or false)",
	"string":  "a string",
	"object":  "a mapping",
	"array":   "a list",
	"null":    "nothing",
}

// Describe says what a value is, for "expected X, got Y" messages, as a
// YAML file would call it.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		if r := []rune(x); len(r) > 40 {
			x = string(r[:37]) + "..."
		}
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "number " + string(x)
		}
		return "integer " + string(x)
	case int, int64, uint64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("number %g", x)
	}
	return fmt.Sprint(v)
}

// fragment returns the part of a schema URL after '#'.
func fragment(u string) string {
	if _, f, ok := strings.Cut(u, "#"); ok {
		// A pattern's own characters (a map's key pattern is a token of
		// the pointer) arrive escaped as in a URL.
		if d, err := url.PathUnescape(f); err == nil {
			return d
		}
		return f
	}
	return ""
}

// valueAt returns the value at the JSON pointer tokens at, or nil.
func valueAt(v any, at []string) any {
	for _, tok := range at {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i := 0
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
