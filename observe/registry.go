package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Registry maps the names of source types ("sql", "file") to what makes
// their settings. It is a value, not a global: programs and tests may
// build their own with NewRegistry and Register.
type Registry struct {
	m map[string]Descriptor
}

// Descriptor is one registered source type.
type Descriptor struct {
	// Name is the type's name; New().Type() returns it.
	Name string
	// Summary says in one line what the source reads, for help and docs.
	Summary string
	// New returns the zero settings, into which a configuration is
	// decoded.
	New func() Source
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[string]Descriptor{}} }

// Register adds d, replacing a type registered under the same name.
func (r *Registry) Register(d Descriptor) { r.m[d.Name] = d }

// Builtin returns a registry of idemcheck's own sources.
func Builtin() *Registry {
	r := NewRegistry()
	r.Register(Descriptor{Name: "sql", Summary: "rows a query selects in the target's PostgreSQL or SQLite database, read-only", New: func() Source { return &SQL{} }})
	r.Register(Descriptor{Name: "http", Summary: "objects a read-back of the target's own API lists, every page", New: func() Source { return &HTTP{} }})
	r.Register(Descriptor{Name: "mcp", Summary: "items a read-only tool of the MCP server returns", New: func() Source { return &MCP{} }})
	r.Register(Descriptor{Name: "file", Summary: "items of a JSON document, a JSONL file or a directory of them", New: func() Source { return &File{} }})
	r.Register(Descriptor{Name: "redis", Summary: "Redis keys by pattern, the entries of a stream or the fields of a hash", New: func() Source { return &Redis{} }})
	r.Register(Descriptor{Name: "count", Summary: "a number or the rows of a table, read before and after each intent: the change is the intent's", New: func() Source { return &Count{} }})
	return r
}

// Names lists the registered types, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Describe returns the descriptor of a type.
func (r *Registry) Describe(name string) (Descriptor, bool) {
	d, ok := r.m[name]
	return d, ok
}

// New decodes settings (a JSON object; empty for none) into the source
// type name and validates them. Decoding is strict: an unknown field is
// an error, so a typo never silently means "the default".
func (r *Registry) New(name string, settings []byte) (Source, error) {
	d, ok := r.m[name]
	if !ok {
		return nil, fmt.Errorf("unknown observer source %q: expected one of %s", name, strings.Join(r.Names(), ", "))
	}
	src := d.New()
	if len(bytes.TrimSpace(settings)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(settings))
		dec.DisallowUnknownFields()
		if err := dec.Decode(src); err != nil {
			return nil, fmt.Errorf("observer source %s: settings: %w", name, err)
		}
	}
	if v, ok := src.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("observer source %s: %w", name, err)
		}
	}
	return src, nil
}
