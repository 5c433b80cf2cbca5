package mcp

import (
	"fmt"
	"maps"
	"slices"
	"sort"
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
	props    map[string]*Schema // by dotted path, for typing generated values
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
		props: map[string]*Schema{}, inputs: map[string]harness.Input{},
		fixed: o.Arguments, effect: cfg.Effect, identity: cfg.Identity,
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
	p.marker = o.Marker
	if p.marker == "" {
		p.marker = schema.MarkerProperty(skip...)
	}
	if p.marker == "" && p.mutating && !fixedUsesMarker(o.Arguments) {
		return nil, "", fmt.Errorf("tool %s: no free-text string argument to carry {{marker}} (idemcheck's attribution of effects): name one with marker:, or put {{marker}} in arguments:", t.Name)
	}
	skip = append(skip, p.marker)
	for _, l := range schema.Leaves() {
		p.props[l.Path] = l.Schema
		if contains(skip, l.Path) {
			continue
		}
		if _, fixed := o.Arguments[l.Path]; fixed {
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

func fixedUsesMarker(args map[string]any) bool {
	for _, v := range args {
		if s, ok := v.(string); ok && containsMarker(s) {
			return true
		}
	}
	return false
}

func containsMarker(s string) bool { return strings.Contains(s, "{{marker}}") }

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
		setPath(args, n, typed(p.props[n], c.Inputs[n]))
	}
	if p.marker != "" {
		setPath(args, p.marker, c.Marker)
	}
	vars := c.Vars()
	for k, v := range p.fixed {
		if s, ok := v.(string); ok {
			x, err := harness.Expand(s, vars)
			if err != nil {
				return nil, fmt.Errorf("tool %s: argument %s: %w", p.name, k, err)
			}
			if len(s) > 2 && s[0] == '{' && s[1] == '{' && c.Inputs != nil {
				setPath(args, k, typed(p.props[k], x))
				continue
			}
			v = x
		}
		setPath(args, k, v)
	}
	meta := sdk.Meta{MetaAttempt: c.ID}
	if c.Key != "" && p.mutating {
		switch p.key.In {
		case InArgument:
			setPath(args, p.key.Name, c.Key)
		case InMeta:
			meta[p.key.Name] = c.Key
		}
	}
	if c.DryRun {
		if !p.mutating || p.dryRun.In != InArgument {
			return nil, fmt.Errorf("tool %s has no dry-run mode", p.name)
		}
		setPath(args, p.dryRun.Name, true)
	}
	return &sdk.CallToolParams{Meta: meta, Name: p.name, Arguments: args}, nil
}
