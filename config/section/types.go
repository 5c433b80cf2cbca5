package section

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/harness"
)

// Patterns and messages that several fields share.
const (
	// HeaderName is an HTTP field name (an RFC 9110 token).
	HeaderName = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
	// SlashPath is a path under a URL.
	SlashPath = "^/"
	// NoControl is a value that goes into a request line or a header as
	// written: a control character (a CR or LF above all) would end the
	// line and start a header or a request of the file's making.
	NoControl = "^[^\\x00-\\x08\\x0a-\\x1f\\x7f]*$"
	// InputName is an input a template names as {{input.NAME}}.
	InputName = "^[A-Za-z0-9_-]+$"
	// EnvName is an environment variable's name, as exec takes it.
	EnvName = "^[^=\\x00]+$"
)

// Messages of the shared patterns.
var (
	BadHeader    = schema.Sprintf("invalid header name %q")
	BadSlashPath = schema.Sprintf(`must start with "/", got %q`)
	BadControl   = schema.Sprintf("%q holds a control character (a CR or LF would split the request): write it on one line, without control characters")
	BadInputName = schema.Sprintf("invalid input name %q: use letters, digits, '_' and '-', so that {{input.NAME}} can refer to it")
	BadEnvName   = schema.Sprintf("invalid environment variable name %q")
)

// Secret is a secret written in the file, such as a webhook signing
// secret. It formats as "[redacted]" with the fmt verbs, so that printing
// a File or a target cannot leak it; convert it to a string to use it.
type Secret string

// String returns "[redacted]", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString redacts the secret for %#v too.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// Locator says where a value is in a reply: a field of the JSON body, given
// as a dotted path such as "data.id", or a response header. At most one of
// the two is set.
type Locator struct {
	JSON   string `yaml:"json,omitempty"`
	Header string `yaml:"header,omitempty"`
}

// Rules implements schema.Ruler.
func (Locator) Rules(r *schema.Rules) {
	r.Field("json").Pattern(`^[^.]+(\.[^.]+)*$`, schema.Sprintf(`invalid JSON path %q: write field names separated by dots, such as "data.id"`))
	r.Field("header").Pattern(HeaderName, BadHeader)
}

// Check checks what the schema cannot: not both. An override (an
// operation's) must say where; a target's may be left empty for the
// default.
func (l Locator) Check(c *Checker, override bool) {
	switch {
	case l.JSON != "" && l.Header != "":
		c.Errorf("set json or header, not both")
	case override && l.JSON == "" && l.Header == "":
		c.Errorf("set json (a path in the JSON reply, such as \"data.id\") or header; or leave it out to use the target's")
	}
}

// NoHeader reports a locator by header where a reply has no headers;
// what says what the reply is ("a command's reply has no headers: use
// json, …").
func (l *Locator) NoHeader(c *Checker, what string) {
	if l != nil && l.Header != "" {
		c.Field("header").Errorf("%s", what)
	}
}

// DryRun says how a target is asked for a dry run: with a query parameter
// or with a header, set to Value. Exactly one of Query and Header is set.
type DryRun struct {
	Query  string `yaml:"query,omitempty"`
	Header string `yaml:"header,omitempty"`
	// Value is the parameter's or header's value. Default
	// DefaultDryRunValue.
	Value string `yaml:"value"`
}

// DefaultDryRunValue is the value of a dry run's parameter or header.
const DefaultDryRunValue = "true"

// Rules implements schema.Ruler.
func (DryRun) Rules(r *schema.Rules) {
	r.Field("query").Pattern(`^[^=&?# ]*$`, schema.Sprintf("invalid query parameter name %q: write the name only; the value goes in value"))
	r.Field("header").Pattern(HeaderName, BadHeader)
	r.Field("value").Pattern(NoControl, BadControl)
}

// Check checks that the dry run is asked one way.
func (d *DryRun) Check(c *Checker) {
	switch {
	case d.Query == "" && d.Header == "":
		c.Errorf("set query (a query parameter, such as dry_run) or header (such as X-Dry-Run) to say how the target is asked for a dry run; or leave dry_run out if it has none")
	case d.Query != "" && d.Header != "":
		c.Errorf("set query or header, not both")
	}
	CheckOwnHeader(c.Field("header"), d.Header)
}

// framing are the headers that say where a request ends or how its
// connection is kept: the client sets them from the request it sends,
// and a value written in the file would make the request malformed or
// send a second one inside the first.
var framing = []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade", "Expect"}

// CheckOwnHeader refuses a header that idemcheck would set to a value of
// its own choosing (a key, a dry-run flag, an event id) when it is one
// that frames the request.
func CheckOwnHeader(c *Checker, name string) {
	for _, f := range framing {
		if strings.EqualFold(name, f) {
			c.Errorf("%s frames the request (the client sets it from what it sends): choose another header to carry this value", f)
			return
		}
	}
}

// Defaults fills in the value.
func (d *DryRun) Defaults() {
	if d != nil && d.Value == "" {
		d.Value = DefaultDryRunValue
	}
}

// Input generates the values of one {{input.NAME}} placeholder. Exactly
// one of Int, Choice and String is set.
type Input struct {
	// Int is [min, max], both included.
	Int []int `yaml:"int,omitempty,flow"`
	// Choice lists the values to pick from; at least two distinct ones,
	// so that the harness can send the same key with a changed payload.
	Choice []string `yaml:"choice,omitempty,flow"`
	// String generates random strings.
	String *StringGen `yaml:"string,omitempty"`
}

// StringGen generates a random string: Prefix followed by Length random
// lower-case letters and digits.
type StringGen struct {
	Prefix string `yaml:"prefix,omitempty"`
	// Length is 1 to 64. Zero or absent means DefaultStringLength.
	Length int `yaml:"length"`
}

// Bounds of generated strings.
const (
	DefaultStringLength = 8
	MaxStringLength     = 64
)

// Rules implements schema.Ruler.
func (StringGen) Rules(r *schema.Rules) {
	r.Field("length").Range(0, MaxStringLength, schema.Sprintf(fmt.Sprintf("%%v is out of range: use 1 to %d (default %d)", MaxStringLength, DefaultStringLength)))
}

// Check checks what the schema cannot say of an input.
func (in Input) Check(c *Checker) {
	var set []string
	if in.Int != nil {
		set = append(set, "int")
	}
	if in.Choice != nil {
		set = append(set, "choice")
	}
	if in.String != nil {
		set = append(set, "string")
	}
	switch {
	case len(set) == 0:
		c.Errorf("missing: say how to generate the input with one of int: [min, max], choice: [a, b] or string: {prefix: p-, length: 8}")
		return
	case len(set) > 1:
		c.Errorf("set only one of int, choice and string, not %s", strings.Join(set, " and "))
		return
	}
	switch {
	case in.Int != nil:
		if len(in.Int) != 2 {
			c.Field("int").Errorf("expected [min, max], got %d values", len(in.Int))
		} else if in.Int[0] > in.Int[1] {
			c.Field("int").Errorf("min %d is greater than max %d", in.Int[0], in.Int[1])
		}
	case in.Choice != nil:
		if distinct := slices.Compact(slices.Sorted(slices.Values(in.Choice))); len(distinct) < 2 {
			c.Field("choice").Errorf("needs at least two different values, so that the harness can send the same key with a changed payload (key.mismatch)")
		}
	}
}

// CheckInputs checks the inputs at c, a map of them.
func CheckInputs(c *Checker, inputs map[string]Input) {
	for _, name := range SortedKeys(inputs) {
		inputs[name].Check(c.Key(name))
	}
}

// DefaultInputs fills in the inputs' defaults.
func DefaultInputs(inputs map[string]Input) {
	for _, in := range inputs {
		if in.String != nil && in.String.Length == 0 {
			in.String.Length = DefaultStringLength
		}
	}
}

// HarnessInputs converts input generators for the harness.
func HarnessInputs(gens map[string]Input) map[string]harness.Input {
	out := map[string]harness.Input{}
	for name, in := range gens {
		switch {
		case len(in.Int) == 2:
			out[name] = harness.Input{Kind: "int", Min: in.Int[0], Max: in.Int[1]}
		case len(in.Choice) > 0:
			out[name] = harness.Input{Kind: "choice", Choices: in.Choice}
		case in.String != nil:
			out[name] = harness.Input{Kind: "string", Prefix: in.String.Prefix, Length: in.String.Length}
		}
	}
	return out
}
