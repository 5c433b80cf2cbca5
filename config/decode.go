package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The decoder walks a yaml.Node tree into Go values by reflection, rather
// than using yaml.Unmarshal, for three reasons: every error carries the
// line, column and path of its node; decoding goes on after an error, so a
// file's problems are all reported at once; and the position of every value
// is recorded, for validation to report against.
//
// It supports what the schema uses: structs (fields by `yaml:"name"` tag),
// map[string]T, []T, string, integers, bool, float64, pointers, any (kept
// as yaml.v3 decodes it), and types with a decodeNode method.

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

type decoder struct {
	file   string
	errs   Errors
	pos    map[string]pos      // position of each decoded value, by path
	bad    map[string]bool     // paths whose value could not be decoded
	active map[*yaml.Node]bool // anchored nodes being decoded, to catch cycles
	nodes  int                 // nodes visited, against maxNodes
	stop   bool                // maxNodes was reached
}

func newDecoder(file string) *decoder {
	return &decoder{
		file:   file,
		pos:    map[string]pos{},
		bad:    map[string]bool{},
		active: map[*yaml.Node]bool{},
	}
}

// nodeDecoder is implemented by types that decode themselves.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

func (d *decoder) errorAt(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &Error{
		File: d.file, Line: n.Line, Column: n.Column, Path: path,
		Msg: fmt.Sprintf(format, args...),
	})
}

// fail reports a value that could not be decoded and marks its path, so
// that validation does not also complain that the value is missing.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.errorAt(n, path, format, args...)
	d.bad[path] = true
}

// enter counts n against the node budget and resolves it if it is an
// alias. Unless ok is false, the caller must call leave when done with the
// returned node.
func (d *decoder) enter(n *yaml.Node, path string) (_ *yaml.Node, leave func(), ok bool) {
	if d.stop {
		return nil, nil, false
	}
	d.nodes++
	if d.nodes > maxNodes {
		d.stop = true
		d.fail(n, path, "the document expands to more than %d values (are aliases repeating large parts of it?)", maxNodes)
		return nil, nil, false
	}
	use := n
	for n.Kind == yaml.AliasNode {
		if n.Alias == nil { // the parser refuses unknown aliases; be safe anyway
			d.fail(use, path, "unknown alias *%s", use.Value)
			return nil, nil, false
		}
		n = n.Alias
	}
	if n.Anchor == "" {
		return n, func() {}, true
	}
	if d.active[n] {
		d.fail(use, path, "alias *%s refers to a value that contains the alias itself", n.Anchor)
		return nil, nil, false
	}
	d.active[n] = true
	return n, func() { delete(d.active, n) }, true
}

// decode decodes n into v, which must be settable, and records n's
// position under path.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	n, leave, ok := d.enter(n, path)
	if !ok {
		return
	}
	defer leave()
	d.pos[path] = pos{n.Line, n.Column}
	d.decodeValue(n, v, path)
}

func (d *decoder) decodeValue(n *yaml.Node, v reflect.Value, path string) {
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n, path)
		return
	}
	if v.Kind() == reflect.Pointer {
		d.decodePointer(n, v, path)
		return
	}
	if isNull(n) {
		// An empty value is an absent one; validation says if it was needed.
		v.SetZero()
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.Interface:
		d.decodeAny(n, v, path)
	default:
		d.decodeScalar(n, v, path)
	}
}

func (d *decoder) decodePointer(n *yaml.Node, v reflect.Value, path string) {
	elem := v.Type().Elem()
	if isNull(n) {
		if elem.Kind() == reflect.Struct {
			// A section written with nothing under it, such as
			// "payments:", is there with its defaults.
			v.Set(reflect.New(elem))
		} else {
			v.SetZero()
		}
		return
	}
	p := reflect.New(elem)
	d.decodeValue(n, p.Elem(), path)
	if !d.bad[path] {
		v.Set(p)
	}
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
func (d *decoder) pairs(n *yaml.Node, path string) []pair {
	var own, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k
		for key.Kind == yaml.AliasNode && key.Alias != nil {
			key = key.Alias
		}
		if key.Kind != yaml.ScalarNode {
			d.errorAt(k, path, "expected a key, got %s", describe(key))
			continue
		}
		if key.ShortTag() == mergeTag {
			merged = append(merged, d.mergedPairs(v, path)...)
			continue
		}
		if first, dup := seen[key.Value]; dup {
			d.errorAt(k, pathKey(path, key.Value), "duplicate key %q (first at line %d); remove one of them", key.Value, first.Line)
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

// mergedPairs returns the entries that a merge key's value brings in.
func (d *decoder) mergedPairs(v *yaml.Node, path string) []pair {
	v, leave, ok := d.enter(v, path)
	if !ok {
		return nil
	}
	defer leave()
	switch v.Kind {
	case yaml.MappingNode:
		return d.pairs(v, path)
	case yaml.SequenceNode:
		var out []pair
		for _, item := range v.Content {
			m, leave, ok := d.enter(item, path)
			if !ok {
				return out
			}
			if m.Kind == yaml.MappingNode {
				out = append(out, d.pairs(m, path)...)
			} else {
				d.errorAt(item, path, "<< merges mappings, got %s in its list", describe(m))
			}
			leave()
		}
		return out
	default:
		d.errorAt(v, path, "<< merges a mapping or a list of mappings, got %s", describe(v))
		return nil
	}
}

// field is a struct field as the YAML file names it.
type field struct {
	name  string
	index int
}

func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		out = append(out, field{name, i})
	}
	return out
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	fields := structFields(v.Type())
	for _, p := range d.pairs(n, path) {
		if path == "" && strings.HasPrefix(p.key, extensionPrefix) {
			continue // a place for anchors, as in Docker Compose files
		}
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == p.key })
		if i < 0 {
			names := make([]string, len(fields))
			for j, f := range fields {
				names[j] = f.name
			}
			d.errorAt(p.keyNode, pathKey(path, p.key), "unknown field %q (%sknown fields: %s)",
				p.key, didYouMean(p.key, names), strings.Join(names, ", "))
			continue
		}
		d.decode(p.value, v.Field(fields[i].index), pathField(path, p.key))
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.fail(n, path, "internal error: cannot decode into %s", t)
		return
	}
	m := reflect.MakeMap(t)
	for _, p := range d.pairs(n, path) {
		e := reflect.New(t.Elem()).Elem()
		d.decode(p.value, e, pathKey(path, p.key))
		m.SetMapIndex(reflect.ValueOf(p.key).Convert(t.Key()), e)
	}
	v.Set(m)
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "expected a list, got %s", describe(n))
		return
	}
	// Not nil even when empty: "faults: []" differs from no faults section.
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), pathIndex(path, i))
	}
	v.Set(s)
}

// decodeAny keeps a value as yaml.v3 decodes it into an any, for settings
// whose type is only known later.
func (d *decoder) decodeAny(n *yaml.Node, v reflect.Value, path string) {
	var x any
	if err := n.Decode(&x); err != nil {
		d.fail(n, path, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if x == nil {
		v.SetZero()
		return
	}
	v.Set(reflect.ValueOf(x))
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) {
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.fail(n, path, "expected a string, got %s", describe(n))
			return
		}
		s := n.Value // an unquoted 8080 or true is fine as a string
		if tag == binaryTag {
			if err := n.Decode(&s); err != nil {
				d.fail(n, path, "invalid !!binary value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
				return
			}
		}
		v.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || tag != intTag {
			d.fail(n, path, "expected an integer, got %s", describe(n))
		} else if err := n.Decode(&i); err != nil || v.OverflowInt(i) {
			d.fail(n, path, "integer %s is out of range", n.Value)
		} else {
			v.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var u uint64
		if n.Kind != yaml.ScalarNode || tag != intTag || strings.HasPrefix(n.Value, "-") {
			d.fail(n, path, "expected a non-negative integer, got %s", describe(n))
		} else if err := n.Decode(&u); err != nil || v.OverflowUint(u) {
			d.fail(n, path, "integer %s is out of range", n.Value)
		} else {
			v.SetUint(u)
		}
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || tag != boolTag || n.Decode(&b) != nil {
			d.fail(n, path, "expected a boolean (true or false), got %s", describe(n))
		} else {
			v.SetBool(b)
		}
	case reflect.Float32, reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || (tag != intTag && tag != floatTag) || n.Decode(&f) != nil {
			d.fail(n, path, "expected a number, got %s", describe(n))
		} else {
			v.SetFloat(f)
		}
	default:
		d.fail(n, path, "internal error: cannot decode into %s", v.Type())
	}
}

// decodeNode reads a fault either as a plain name or as a mapping with a
// name and settings.
func (f *FaultSpec) decodeNode(d *decoder, n *yaml.Node, path string) {
	switch {
	case isNull(n):
		*f = FaultSpec{}
	case n.Kind == yaml.ScalarNode:
		d.decodeValue(n, reflect.ValueOf(&f.Name).Elem(), path)
	case n.Kind == yaml.MappingNode:
		for _, p := range d.pairs(n, path) {
			if p.key == "name" {
				d.decode(p.value, reflect.ValueOf(&f.Name).Elem(), pathField(path, "name"))
				continue
			}
			var x any
			d.decode(p.value, reflect.ValueOf(&x).Elem(), pathKey(path, p.key))
			if f.Settings == nil {
				f.Settings = map[string]any{}
			}
			f.Settings[p.key] = x
		}
	default:
		d.fail(n, path, "expected a fault name, or a mapping such as {name: client-timeout, timeout: 300ms}, got %s", describe(n))
	}
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

// didYouMean suggests the known name closest to got, if one is close
// enough to be a typo; the result ends with a space, ready to be followed
// by the list of known names.
func didYouMean(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(got), k); dist < bestDist && dist < len(k)/2+1 {
			best, bestDist = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q? ", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30 // no typo is that long, and this keeps the cost bounded
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
