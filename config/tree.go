package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
)

// The file's YAML nodes become a tree of JSON values (maps, slices,
// strings, numbers, booleans) for the schema to check, and for the
// structs to be decoded from. Making it resolves what YAML has and JSON
// has not (aliases, merge keys), refuses what YAML tools often accept
// silently (a key written twice, an alias that contains itself, an
// expansion without end), and records where every value and every key is
// written, by path, for the messages. The Go type each value decodes into
// guides it: a scalar for a string field is a string, whatever YAML
// resolves it to (port: 8080); an empty value is an absent one, except a
// section written with nothing under it ("payments:"), which is there
// with its defaults, and a required field written empty, which the schema
// says must not be.

// extensionPrefix starts the top-level keys that Parse ignores, so that a
// file can define YAML anchors there and use them below.
const extensionPrefix = "x-"

// maxNodes bounds the nodes one Parse visits, so that a few aliases cannot
// expand a small file into billions of nodes.
const maxNodes = 100_000

const (
	strTag    = "!!str"
	intTag    = "!!int"
	floatTag  = "!!float"
	boolTag   = "!!bool"
	nullTag   = "!!null"
	binaryTag = "!!binary"
	mergeTag  = "!!merge"
)

// pos is the 1-based line and column of a YAML node.
type pos struct{ line, col int }

type tree struct {
	file   string
	reg    *Registry
	pos    map[string]pos // where each value is written, by path
	keys   map[string]pos // where each field's key is written, by path
	errs   Errors
	active map[*yaml.Node]bool // anchored nodes being read, to catch cycles
	nodes  int                 // nodes visited, against maxNodes
	stop   bool                // maxNodes was reached
}

func (c *tree) errorAt(n *yaml.Node, path, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.file, Line: n.Line, Column: n.Column, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// enter counts n against the node budget and resolves it if it is an
// alias. Unless ok is false, the caller must call leave when done.
func (c *tree) enter(n *yaml.Node, path string) (_ *yaml.Node, leave func(), ok bool) {
	if c.stop {
		return nil, nil, false
	}
	if c.nodes++; c.nodes > maxNodes {
		c.stop = true
		c.errorAt(n, path, "the document expands to more than %d values (are aliases repeating large parts of it?)", maxNodes)
		return nil, nil, false
	}
	use := n
	for n.Kind == yaml.AliasNode {
		if n.Alias == nil { // the parser refuses unknown aliases; be safe anyway
			c.errorAt(use, path, "unknown alias *%s", use.Value)
			return nil, nil, false
		}
		n = n.Alias
	}
	if n.Anchor == "" {
		return n, func() {}, true
	}
	if c.active[n] {
		c.errorAt(use, path, "alias *%s refers to a value that contains the alias itself", n.Anchor)
		return nil, nil, false
	}
	c.active[n] = true
	return n, func() { delete(c.active, n) }, true
}

// value returns the JSON value of n, which decodes into t (nil when
// unknown), and records its position under path; ok is false when n
// cannot be read at all.
func (c *tree) value(n *yaml.Node, t reflect.Type, path string) (v any, ok bool) {
	n, leave, ok := c.enter(n, path)
	if !ok {
		return nil, false
	}
	defer leave()
	c.pos[path] = pos{n.Line, n.Column}
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n, t, path), true
	case yaml.SequenceNode:
		var elem reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			elem = t.Elem()
		}
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			p := section.PathIndex(path, i)
			x, ok := c.value(item, elem, p)
			if ok && x == nil && isNull(item) {
				x = zero(elem)
			}
			out = append(out, x)
		}
		return out, true
	}
	return c.scalar(n, t, path), true
}

// mapping returns the JSON object of mapping n.
func (c *tree) mapping(n *yaml.Node, t reflect.Type, path string) map[string]any {
	out := map[string]any{}
	fieldTypes, required := c.fields(n, t, path)
	for _, p := range c.pairs(n, path) {
		if path == "" && strings.HasPrefix(p.key, extensionPrefix) {
			continue // a place for anchors, as in Docker Compose files
		}
		ft, field := fieldTypes[p.key]
		if !field && t != nil && t.Kind() == reflect.Map {
			ft = t.Elem()
		}
		kp := section.PathKey(path, p.key)
		c.keys[kp] = pos{p.keyNode.Line, p.keyNode.Column}
		x, ok := c.value(p.value, ft, kp)
		if !ok {
			continue
		}
		if x == nil && isNull(resolve(p.value)) {
			switch {
			case isSection(ft):
				x = map[string]any{} // "payments:" is there, with its defaults
			case field && !slices.Contains(required, p.key):
				continue // an empty value is an absent one
			case !field:
				x = zero(ft)
			}
		}
		out[p.key] = x
	}
	return out
}

// fields returns the types of the fields of the struct (or the fakes, or
// the target) that mapping n decodes into, by name, and the required
// ones.
func (c *tree) fields(n *yaml.Node, t reflect.Type, path string) (map[string]reflect.Type, []string) {
	switch t {
	case reflect.TypeFor[Fakes]():
		out := map[string]reflect.Type{}
		for _, d := range c.reg.Fakes {
			out[d.Name] = reflect.TypeOf(d.New())
		}
		return out, nil
	case reflect.TypeFor[Target]():
		k := c.reg.Kinds[0]
		if kind, ok := c.reg.kind(scalarAt(n, "kind")); ok {
			k = kind
		}
		t = reflect.TypeOf(k.New()).Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, nil
	}
	out := map[string]reflect.Type{}
	for _, f := range fieldsOf(t) {
		out[f.name] = f.typ
	}
	return out, schema.Required(t)
}

// scalar returns the JSON value of scalar n.
func (c *tree) scalar(n *yaml.Node, t reflect.Type, path string) any {
	tag := n.ShortTag()
	if tag == nullTag {
		return nil
	}
	if t != nil && t.Kind() == reflect.String {
		s := n.Value // an unquoted 8080 or true is fine as a string
		if tag == binaryTag {
			if err := n.Decode(&s); err != nil {
				c.errorAt(n, path, "invalid !!binary value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
			}
		}
		return s
	}
	if t != nil && t.Kind() == reflect.Interface {
		var x any
		if err := n.Decode(&x); err != nil {
			c.errorAt(n, path, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
			return nil
		}
		return x
	}
	switch tag {
	case intTag:
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
		c.errorAt(n, path, "integer %s is out of range", n.Value)
		return nil
	case floatTag:
		var f float64
		if n.Decode(&f) == nil {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				// JSON has no such number, and no setting means one: a
				// rate of .nan or .inf would make every wait endless or
				// none.
				c.errorAt(n, path, "expected a finite number, got %s", n.Value)
				return nil
			}
			return f
		}
		c.errorAt(n, path, "expected a finite number, got %s", n.Value)
		return nil
	case boolTag:
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	}
	return n.Value
}

// pair is one entry of a mapping.
type pair struct {
	key     string
	keyNode *yaml.Node
	value   *yaml.Node
}

// pairs lists the entries of mapping n, with merge keys ("<<: *base")
// expanded: entries written in n win over merged ones, and among merged
// mappings the first wins, as YAML specifies. A key written twice is an
// error (yaml.v3 only checks this when it decodes into Go values).
func (c *tree) pairs(n *yaml.Node, path string) []pair {
	var own, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := resolve(k)
		if key.Kind != yaml.ScalarNode {
			c.errorAt(k, path, "expected a key, got %s", describe(key))
			continue
		}
		if key.ShortTag() == mergeTag {
			merged = append(merged, c.merged(v, path)...)
			continue
		}
		if first, dup := seen[key.Value]; dup {
			c.errorAt(k, section.PathKey(path, key.Value), "duplicate key %q (first at line %d); remove one of them", key.Value, first.Line)
			continue
		}
		seen[key.Value] = k
		own = append(own, pair{key.Value, k, v})
	}
	for _, p := range merged {
		if _, dup := seen[p.key]; !dup {
			seen[p.key] = p.keyNode
			own = append(own, p)
		}
	}
	return own
}

// merged returns the entries that a merge key's value brings in.
func (c *tree) merged(v *yaml.Node, path string) []pair {
	v, leave, ok := c.enter(v, path)
	if !ok {
		return nil
	}
	defer leave()
	switch v.Kind {
	case yaml.MappingNode:
		return c.pairs(v, path)
	case yaml.SequenceNode:
		var out []pair
		for _, item := range v.Content {
			m, leave, ok := c.enter(item, path)
			if !ok {
				return out
			}
			if m.Kind == yaml.MappingNode {
				out = append(out, c.pairs(m, path)...)
			} else {
				c.errorAt(item, path, "<< merges mappings, got %s in its list", describe(m))
			}
			leave()
		}
		return out
	default:
		c.errorAt(v, path, "<< merges a mapping or a list of mappings, got %s", describe(v))
		return nil
	}
}

// field is a struct field as the file names it.
type field struct {
	name string
	typ  reflect.Type
}

// fieldsOf returns the fields of struct type t by their yaml names, those
// of inline embedded structs in their place.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && strings.Contains(opts, "inline"):
			out = append(out, fieldsOf(f.Type)...)
		case f.IsExported() && name != "" && name != "-":
			out = append(out, field{name, f.Type})
		}
	}
	return out
}

// isSection says whether a field of type t written empty is there with
// its defaults: a pointer to a struct, or a fake's settings.
func isSection(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
}

// zero is the JSON value of an empty list item or map value of type t:
// what it decodes into when written empty.
func zero(t reflect.Type) any {
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return ""
	case reflect.Struct, reflect.Interface:
		return map[string]any{}
	case reflect.Bool:
		return false
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return int64(0)
	}
	return nil
}

// scalarAt returns the value of key in mapping n when it is a scalar.
func scalarAt(n *yaml.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Value == key {
			if v := resolve(n.Content[i+1]); v.Kind == yaml.ScalarNode {
				return v.Value
			}
		}
	}
	return ""
}

// resolve follows n's aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == nullTag
}

// describe says what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	case yaml.ScalarNode:
		v := n.Value
		if utf8.RuneCountInString(v) > 40 {
			v = string([]rune(v)[:37]) + "..."
		}
		switch n.ShortTag() {
		case strTag:
			return fmt.Sprintf("string %q", v)
		case intTag:
			return "integer " + v
		case floatTag:
			return "number " + v
		case boolTag:
			return "boolean " + v
		case nullTag:
			return "null"
		default:
			return fmt.Sprintf("%s %q", n.ShortTag(), v)
		}
	}
	return "nothing"
}
