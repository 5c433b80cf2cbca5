package mcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/harness"
)

// plan is how the adapter calls one tool.
type plan struct {
	name     string
	tool     *sdk.Tool
	schema   *Schema
	mutating bool
	key      Placement
	dryRun   Placement
	marker   string
	inputs   map[string]harness.Input
	fixed    map[string]any
	effect   string
	identity string
}

// plans builds the plan of every tool to test from what tools/list
// returned and the configuration's overrides. notes says where the
// configuration and the annotations disagree.
func plans(cfg Config, listed []*sdk.Tool) (map[string]*plan, []harness.Operation, []string, error) {
	byName := map[string]*sdk.Tool{}
	for _, t := range listed {
		byName[t.Name] = t
	}
	overrides := cfg.Tools
	if len(overrides) == 0 {
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			overrides = append(overrides, Tool{Name: n})
		}
	}
	out := map[string]*plan{}
	var ops []harness.Operation
	var notes []string
	for _, o := range overrides {
		t := byName[o.Name]
		if t == nil {
			return nil, nil, nil, fmt.Errorf("tool %q: the server does not list it (tools/list has %s)", o.Name, toolNames(listed))
		}
		if _, dup := out[o.Name]; dup {
			return nil, nil, nil, fmt.Errorf("tool %q is configured twice", o.Name)
		}
		p, note, err := newPlan(cfg, o, t)
		if err != nil {
			return nil, nil, nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		out[o.Name] = p
		ops = append(ops, harness.Operation{
			Name: p.name, Mutating: p.mutating, Inputs: p.inputs,
			DryRun:      p.mutating && p.dryRun.In == InArgument,
			Annotations: annotations(t),
			Deletes:     deletes(t.Name),
			NoKey:       p.mutating && p.key.In != InArgument && p.key.In != InMeta,
		})
	}
	return out, ops, notes, nil
}

// annotations are what the tool's annotations claim, nil for none.
func annotations(t *sdk.Tool) *harness.Annotations {
	a := t.Annotations
	if a == nil {
		return nil
	}
	return &harness.Annotations{ReadOnly: a.ReadOnlyHint, Idempotent: a.IdempotentHint, Destructive: a.DestructiveHint, OpenWorld: a.OpenWorldHint}
}

// deleteWords are the words of a tool's name that say it removes things.
var deleteWords = []string{"delete", "remove", "destroy", "purge", "erase", "revoke", "drop"}

// deletes reports whether a tool's name says it removes things
// (delete_card, removeItem, purge-cache).
func deletes(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(splitCamel(name)), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' })
	for _, w := range words {
		if slices.Contains(deleteWords, w) {
			return true
		}
	}
	return false
}

// splitCamel puts a space before each upper-case letter that follows a
// lower-case one: removeItem → remove Item.
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(s[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func toolNames(ts []*sdk.Tool) string {
	if len(ts) == 0 {
		return "no tools"
	}
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.Name
	}
	return s
}

func newPlan(cfg Config, o Tool, t *sdk.Tool) (*plan, string, error) {
	schema, err := ParseSchema(t.InputSchema)
	if err != nil {
		return nil, "", fmt.Errorf("tool %s: %w", t.Name, err)
	}
	readOnly, _, _, _ := Annotated(t)
	p := &plan{
		name: t.Name, tool: t, schema: schema, mutating: !readOnly,
		inputs: map[string]harness.Input{},
		fixed:  o.Arguments, effect: cfg.Effect, identity: cfg.Identity,
	}
	var note string
	if o.Mutating != nil && *o.Mutating != p.mutating {
		note = fmt.Sprintf("tool %s: the configuration says mutating: %v, its annotations say readOnlyHint: %v; idemcheck follows the configuration", t.Name, *o.Mutating, readOnly)
		p.mutating = *o.Mutating
	}
	if o.Effect != "" {
		p.effect = o.Effect
	}
	if o.Identity != "" {
		p.identity = o.Identity
	}
	p.key = resolveKey(cfg.Key, o.Key, schema)
	p.dryRun = resolveDryRun(cfg.DryRun, o.DryRun, schema)
	var skip []string
	if p.key.In == InArgument {
		skip = append(skip, p.key.Name)
	}
	if p.dryRun.In == InArgument {
		skip = append(skip, p.dryRun.Name)
	}
	p.marker = CanonicalPath(o.Marker)
	if p.marker != "" {
		if err := checkMarkerPath(schema, p.marker); err != nil {
			return nil, "", fmt.Errorf("tool %s: marker: %w", t.Name, err)
		}
	}
	if p.marker == "" && !fixedUsesMarker(o.Arguments) {
		p.marker = schema.MarkerProperty(skip...)
	}
	if p.marker == "" && p.mutating && !cfg.ByDelta && !fixedUsesMarker(o.Arguments) {
		return nil, "", fmt.Errorf("tool %s: no free-text string argument to carry {{marker}} (idemcheck's attribution of effects), at any depth of its input schema: name one with marker: (a JSON path, e.g. items.0.note), put {{marker}} in its arguments, or declare a count observer to attribute by delta", t.Name)
	}
	skip = append(skip, p.marker)
	for _, l := range schema.Leaves() {
		if contains(skip, l.Path) || underFixed(o.Arguments, l.Path) {
			continue
		}
		if KeyLike(leafName(l.Path)) {
			// One key channel: a key-like argument that is not where
			// the key goes is left out unless configured (inputs:,
			// arguments:). A generated value there would be a second key,
			// sent with the first, reused by a twin, and sent by a call
			// meant to carry no key at all.
			continue
		}
		if in, ok := InputFor(l); ok {
			p.inputs[l.Path] = in
		}
	}
	maps.Copy(p.inputs, o.Inputs)
	return p, note, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s && s != "" {
			return true
		}
	}
	return false
}

// fixedUsesMarker reports whether {{marker}} is in a fixed argument: in a
// string at any depth (inside arrays and objects, inside a longer text).
func fixedUsesMarker(args map[string]any) bool {
	return fixedUses(args, func(s string) bool { return strings.Contains(s, "{{marker}}") })
}

// fixedUses reports whether a string of a fixed argument, at any depth,
// is one that has says holds what it looks for.
func fixedUses(args map[string]any, has func(string) bool) bool {
	for _, v := range args {
		if uses(v, has) {
			return true
		}
	}
	return false
}

func uses(v any, has func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return has(x)
	case map[string]any:
		for _, e := range x {
			if uses(e, has) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if uses(e, has) {
				return true
			}
		}
	}
	return false
}

// templateOnly reports whether input name is only a value for the
// {{input.NAME}} of a fixed argument: the tool's input schema has no
// argument of that name, so it is not sent as one (the server would
// refuse an argument its schema does not allow).
func (p *plan) templateOnly(name string) bool {
	if p.schema == nil || len(p.schema.Properties) == 0 || p.schema.At(name) != nil {
		return false
	}
	// Written as harness.Expand reads it: blanks allowed inside the braces.
	re := regexp.MustCompile(`\{\{\s*input\.` + regexp.QuoteMeta(name) + `\s*\}\}`)
	return fixedUses(p.fixed, re.MatchString)
}

// underFixed reports whether a fixed argument sets path or a value that
// holds it ("entities" holds "entities.0.name").
func underFixed(args map[string]any, path string) bool {
	for k := range args {
		k = CanonicalPath(k)
		if path == k || strings.HasPrefix(path, k+".") {
			return true
		}
	}
	return false
}

// checkMarkerPath refuses a marker path the input schema has no string
// at; a schema that declares no properties takes any path.
func checkMarkerPath(s *Schema, path string) error {
	if len(s.Properties) == 0 {
		return nil
	}
	at := s.At(path)
	if at == nil {
		var paths []string
		for _, l := range s.Leaves() {
			paths = append(paths, l.Path)
		}
		return fmt.Errorf("%q is not in the input schema (its leaves: %s)", path, strings.Join(paths, ", "))
	}
	if t := at.typeName(); t != "" && t != "string" {
		return fmt.Errorf("%q is %s %s: {{marker}} is text, it needs a string", path, article(t), t)
	}
	return nil
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func resolveKey(target Placement, tool *Placement, s *Schema) Placement {
	p := target
	if tool != nil {
		p = *tool
	}
	switch p.In {
	case "":
		if n := s.KeyArgument(); n != "" {
			return Placement{In: InArgument, Name: n}
		}
		return Placement{In: InNone}
	case InArgument:
		if p.Name == "" {
			p.Name = s.KeyArgument()
			if p.Name == "" {
				p.Name = KeyArgNames[0]
			}
		}
	case InMeta:
		if p.Name == "" {
			p.Name = DefaultMetaKey
		}
	}
	return p
}

func resolveDryRun(target Placement, tool *Placement, s *Schema) Placement {
	p := target
	if tool != nil {
		p = *tool
	}
	switch p.In {
	case "":
		if n := s.DryRunArgument(); n != "" {
			return Placement{In: InArgument, Name: n}
		}
		return Placement{In: InNone}
	case InArgument:
		if p.Name == "" {
			p.Name = DefaultDryRunArg
		}
	}
	return p
}

// params builds the tools/call of an attempt.
func (p *plan) params(c harness.Call) (*sdk.CallToolParams, error) {
	args := map[string]any{}
	names := make([]string, 0, len(c.Inputs))
	for n := range c.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if p.templateOnly(n) {
			continue
		}
		setPath(args, p.schema, n, typed(p.schema.At(n), c.Inputs[n]))
	}
	if p.marker != "" {
		setPath(args, p.schema, p.marker, c.Marker)
	}
	vars := c.Vars()
	keys := make([]string, 0, len(p.fixed))
	for k := range p.fixed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := p.expand(p.fixed[k], CanonicalPath(k), vars, c.Inputs != nil)
		if err != nil {
			return nil, fmt.Errorf("tool %s: argument %s: %w", p.name, k, err)
		}
		setPath(args, p.schema, k, v)
	}
	meta := sdk.Meta{MetaAttempt: c.ID}
	if c.Key != "" && p.mutating {
		switch p.key.In {
		case InArgument:
			setPath(args, p.schema, p.key.Name, c.Key)
		case InMeta:
			meta[p.key.Name] = c.Key
		}
	}
	if c.DryRun {
		if !p.mutating || p.dryRun.In != InArgument {
			return nil, fmt.Errorf("tool %s has no dry-run mode", p.name)
		}
		setPath(args, p.schema, p.dryRun.Name, true)
	}
	return &sdk.CallToolParams{Meta: meta, Name: p.name, Arguments: args}, nil
}

// expand fills the placeholders of a fixed argument, at any depth: a
// string that is one placeholder and nothing else ("{{input.amount}}") is
// given the type the schema has at path, when the call has inputs.
func (p *plan) expand(v any, path string, vars map[string]string, inputs bool) (any, error) {
	switch x := v.(type) {
	case string:
		out, err := harness.Expand(x, vars)
		if err != nil {
			return nil, err
		}
		if len(x) > 2 && x[0] == '{' && x[1] == '{' && inputs {
			return typed(p.schema.At(path), out), nil
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			m, err := p.expand(e, path+"."+k, vars, inputs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = m
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			m, err := p.expand(e, path+"."+strconv.Itoa(i), vars, inputs)
			if err != nil {
				return nil, fmt.Errorf("%d: %w", i, err)
			}
			out[i] = m
		}
		return out, nil
	}
	return v, nil
}
