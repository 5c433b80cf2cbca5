package config

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
)

// parser turns a file's tree into a File: schema problems first, then the
// decoded structs, then the checks by hand.
type parser struct {
	reg     *Registry
	tree    *tree
	doc     any
	errs    Errors
	refused map[string]bool // paths the schema refused
}

func (r *Registry) newParser(name string, root *yaml.Node, errs Errors) (*parser, error) {
	c := &tree{file: name, reg: r, pos: map[string]pos{"": {1, 1}}, keys: map[string]pos{}, active: map[*yaml.Node]bool{}, errs: errs}
	var doc any = map[string]any{}
	if root != nil {
		if v, ok := c.value(root, reflect.TypeFor[File](), ""); ok && v != nil {
			doc = v
		}
	}
	p := &parser{reg: r, tree: c, doc: doc, errs: c.errs, refused: map[string]bool{}}
	if c.stop { // after a runaway expansion, more errors would be noise
		return p, nil
	}
	sch, err := r.schema()
	if err != nil {
		return nil, err
	}
	for _, pr := range sch.Validate(doc, p.explain) {
		p.problem(pr)
	}
	return p, nil
}

// problem reports what the schema found, unless it is about a target
// whose kind is unknown: only its kind is, then.
func (p *parser) problem(pr schema.Problem) {
	if len(pr.At) >= 3 && pr.At[0] == "targets" && (pr.Unknown || pr.Missing && len(pr.At) == 3 && pr.At[2] != "name" && pr.At[2] != "kind") {
		if _, ok := p.reg.kind(p.kindAt(pr.At[1])); !ok {
			return
		}
	}
	path := pathOf(p.doc, pr.At)
	at := lookupPos(p.tree.pos, path)
	if k, ok := p.tree.keys[path]; ok && pr.Key {
		at = k
	}
	p.errs = append(p.errs, &Error{File: p.tree.file, Line: at.line, Column: at.col, Path: path, Msg: pr.Msg})
	if !pr.Missing {
		p.refused[path] = true
		prune(p.doc, pr.At)
	}
}

// kindAt is the kind the target at index i writes.
func (p *parser) kindAt(i string) string {
	kind, _ := valueAt(p.doc, []string{"targets", i, "kind"}).(string)
	return kind
}

// explain says what a field the schema does not know is: a field of
// another kind of target, or a typo.
func (p *parser) explain(at []string, key string, known []string) (string, bool) {
	if len(at) == 2 && at[0] == "targets" && hasField(reflect.TypeOf(File{}), []string{key}) && key != "version" {
		return fmt.Sprintf("%s is a setting of the whole file, not of one target: move it to the top level, beside targets:", key), true
	}
	if len(at) >= 2 && at[0] == "targets" {
		if k, ok := p.reg.kind(p.kindAt(at[1])); ok {
			var rel []string
			for _, tok := range at[2:] {
				if _, err := strconv.Atoi(tok); err != nil {
					rel = append(rel, tok)
				}
			}
			rel = append(rel, key)
			var others []string
			for _, o := range p.reg.Kinds {
				if o.Name != k.Name && hasField(reflect.TypeOf(o.New()), rel) {
					others = append(others, o.Name)
				}
			}
			if len(others) > 0 {
				msg := fmt.Sprintf("%s is for %s; this is %s target (see kind)", key, kindList(others), article(k.Name))
				if hint := k.Hints[strings.Join(rel, ".")]; hint != "" {
					msg += "; " + hint
				}
				return msg, false
			}
		}
	}
	return fmt.Sprintf("unknown field %q (%sknown fields: %s)", key, schema.DidYouMean(key, known), strings.Join(known, ", ")), true
}

// hasField says whether type t has the field at path rel, through lists,
// maps and pointers.
func hasField(t reflect.Type, rel []string) bool {
	for _, name := range rel {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		i := slices.IndexFunc(fieldsOf(t), func(f field) bool { return f.name == name })
		if i < 0 {
			return false
		}
		t = fieldsOf(t)[i].typ
	}
	return true
}

// article returns kind with its indefinite article: "an http", "a cli",
// "an mcp". A name without vowels is read letter by letter.
func article(kind string) string {
	if kind != "" && (strings.ContainsRune("aeiou", rune(kind[0])) ||
		!strings.ContainsAny(kind, "aeiouy") && strings.ContainsRune("fhlmnrsx", rune(kind[0]))) {
		return "an " + kind
	}
	return "a " + kind
}

// kindList names the kinds a field belongs to: "a cli target", "http and
// container targets".
func kindList(ks []string) string {
	if len(ks) == 1 {
		return article(ks[0]) + " target"
	}
	return strings.Join(ks[:len(ks)-1], ", ") + " and " + ks[len(ks)-1] + " targets"
}

// file decodes the tree into a File and checks it by hand.
func (p *parser) file() (*File, Errors) {
	doc, ok := p.doc.(map[string]any)
	if !ok || p.tree.stop {
		return nil, p.errs
	}
	f := &File{reg: p.reg}
	top := map[string]any{}
	for k, v := range doc {
		if k != "targets" && k != "fakes" {
			top[k] = v
		}
	}
	if list, ok := top["faults"].([]any); ok {
		for i := range list {
			if p.isRefused(section.PathIndex("faults", i)) {
				// Reported already; a list left in its place (see
				// prune) would not decode into a FaultSpec.
				list[i] = nil
			}
		}
	}
	p.decode("", top, f)
	if fakes, ok := doc["fakes"].(map[string]any); ok {
		f.Fakes = Fakes{}
		for _, name := range section.SortedKeys(fakes) {
			if d, ok := p.reg.fake(name); ok {
				s := d.New()
				p.decode(section.PathField("fakes", name), fakes[name], s)
				f.Fakes[name] = s
			}
		}
	}
	targets, _ := doc["targets"].([]any)
	known := make([]bool, len(targets))
	for i, t := range targets {
		k, ok := p.reg.kind(p.kindAt(strconv.Itoa(i)))
		known[i] = ok
		if !ok {
			k = p.reg.Kinds[0]
		}
		tg := k.New()
		p.decode(section.PathIndex("targets", i), t, tg)
		f.Targets = append(f.Targets, tg)
	}

	sf := &section.File{
		Written:    func(path string) bool { _, ok := p.tree.pos[path]; return ok },
		Refused:    p.isRefused,
		Line:       func(path string) int { return lookupPos(p.tree.pos, path).line },
		LookupEnv:  os.LookupEnv,
		Fakes:      p.reg.fakePlaceholders(),
		Configured: func(name string) bool { _, ok := f.Fakes[name]; return ok },
	}
	root := section.NewChecker(sf, "")
	targetsC := root.Field("targets")
	names := make([]string, len(f.Targets))
	for i, t := range f.Targets {
		names[i] = t.Base().Name
		if known[i] {
			sf.Deps = section.SortedKeys(t.Base().Dependencies)
			sf.Delta = section.ByDelta(t.Base().Observe)
			t.Check(targetsC.Index(i))
		}
	}
	targetsC.Unique("target", "name", names, "")
	checkListen(sf, f)
	if len(f.Checks.Only) > 0 && len(f.Checks.Skip) > 0 {
		root.Field("checks").Errorf("set only or skip, not both: only runs just the listed checks, skip runs all but the listed ones")
	}
	checkLate(root.Field("retry"), f.Retry)
	checkFaults(sf, p.reg.Faults, faultsWritten(doc))
	for _, pr := range sf.Problems() {
		at := lookupPos(p.tree.pos, pr.Path)
		p.errs = append(p.errs, &Error{File: p.tree.file, Line: at.line, Column: at.col, Path: pr.Path, Msg: pr.Msg})
	}
	f.env = sf.Env()
	return f, p.errs
}

// faultsWritten are the entries of the file's faults list, each at its
// index in the file: decoded as File.Faults is, except that an entry the
// schema refused, which File.Faults leaves out (and so shifts the later
// ones), is kept in its place, empty.
func faultsWritten(doc map[string]any) []FaultSpec {
	list, _ := doc["faults"].([]any)
	out := make([]FaultSpec, len(list))
	for i, item := range list {
		if item == nil {
			continue
		}
		if b, err := yaml.Marshal(item); err == nil {
			_ = yaml.Unmarshal(b, &out[i]) // the schema let it through: a name or a mapping
		}
	}
	return out
}

// decode decodes v, a part of the tree the schema accepted, into out,
// refusing unknown fields.
func (p *parser) decode(path string, v, out any) {
	b, err := yaml.Marshal(v)
	if err == nil {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		err = dec.Decode(out)
	}
	if err != nil && !p.isRefused(path) {
		at := lookupPos(p.tree.pos, path)
		p.errs = append(p.errs, &Error{File: p.tree.file, Line: at.line, Column: at.col, Path: path,
			Msg: "cannot be read: " + strings.TrimPrefix(err.Error(), "yaml: ")})
	}
}

// isRefused says whether path or a value containing it was refused.
func (p *parser) isRefused(path string) bool {
	for q, ok := path, true; ok; q, ok = section.PathParent(q) {
		if p.refused[q] {
			return true
		}
	}
	return false
}

// checkListen checks the fakes' fixed addresses: loopback host, a port,
// and not the address of another fake.
func checkListen(sf *section.File, f *File) {
	seen := map[string]string{}
	for _, a := range f.FixedAddresses() {
		c := section.NewChecker(sf, a.Path)
		host, port, err := net.SplitHostPort(a.Addr)
		if err != nil {
			c.Errorf("invalid address %q: write host:port, such as 127.0.0.1:4242", a.Addr)
			continue
		}
		if !section.IsLoopback(host) {
			c.Errorf("host %q is not a loopback address: a fake only listens on this machine (127.0.0.1, ::1 or localhost)", host)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			c.Errorf("invalid port %q: write a number from 1 to 65535 (leave listen out for a free port)", port)
		}
		if other, dup := seen[a.Addr]; dup {
			c.Errorf("%s is also %s: each fake needs its own address", a.Addr, other)
		}
		seen[a.Addr] = c.Path()
	}
}

// pathOf names the value at JSON pointer tokens at in doc, as the file's
// paths do: targets[0].operations[1].headers.X-Trace.
func pathOf(doc any, at []string) string {
	path := ""
	v := doc
	for _, tok := range at {
		switch x := v.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			path = section.PathIndex(path, i)
			if i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			path = section.PathKey(path, tok)
			v = x[tok]
		default:
			path = section.PathKey(path, tok)
			v = nil
		}
	}
	return path
}

// valueAt returns the value at JSON pointer tokens at in doc, or nil.
func valueAt(doc any, at []string) any {
	v := doc
	for _, tok := range at {
		switch x := v.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		case map[string]any:
			v = x[tok]
		default:
			return nil
		}
	}
	return v
}

// prune removes the value at at from doc, so that it is not decoded.
func prune(doc any, at []string) {
	if len(at) == 0 {
		return
	}
	switch x := valueAt(doc, at[:len(at)-1]).(type) {
	case map[string]any:
		delete(x, at[len(at)-1])
	case []any:
		if i, err := strconv.Atoi(at[len(at)-1]); err == nil && i >= 0 && i < len(x) {
			x[i] = zeroLike(x[i])
		}
	}
}

// zeroLike is what replaces a refused list item: an empty value of the
// same shape, so that the items keep their indexes.
func zeroLike(v any) any {
	switch v.(type) {
	case map[string]any:
		return map[string]any{}
	case []any:
		return []any{}
	}
	return nil
}
