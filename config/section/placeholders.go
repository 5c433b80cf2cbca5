package section

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
)

// Placeholders returns the names of the placeholders in s, in order, as
// written between "{{" and "}}" with surrounding spaces trimmed:
// "/charges/{{ input.id }}?m={{marker}}" gives ["input.id", "marker"]. An
// unclosed "{{" ends the scan.
func Placeholders(s string) []string {
	names, _ := scanPlaceholders(s)
	return names
}

// scanPlaceholders is Placeholders that also says what is malformed.
func scanPlaceholders(s string) (names, problems []string) {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return names, problems
		}
		rest := s[i+2:]
		j := strings.Index(rest, "}}")
		if j < 0 {
			return names, append(problems, `unclosed placeholder: "{{" without a matching "}}"`)
		}
		if name := strings.TrimSpace(rest[:j]); name != "" {
			names = append(names, name)
		} else {
			problems = append(problems, "empty placeholder {{}}: write a name between the braces")
		}
		s = rest[j+2:]
	}
}

// Expand replaces every placeholder in s by value(name).
func Expand(s string, value func(name string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(value(strings.TrimSpace(s[i+2 : i+2+j])))
		s = s[i+2+j+2:]
	}
	b.WriteString(s)
	return b.String()
}

// The placeholders the harness fills in.
const (
	PhPort      = "port"
	PhStateDir  = "state_dir"
	PhReplica   = "replica"
	PhKey       = "key"
	PhMarker    = "marker"
	PhInput     = "input."
	PhCreated   = "created"
	PhFakes     = "fakes."
	PhDeps      = "deps."
	phEnvPrefix = "env."
)

// TargetTemplate checks the placeholders of a string a target starts
// with (a command, an environment value, a directory, a URL) and says
// whether it uses {{port}}: {{port}}, {{state_dir}}, {{replica}} and the
// placeholders of the fakes, whose fake the file must configure, and of
// the declared dependencies.
func (c *Checker) TargetTemplate(s string) (usesPort bool) { return StartVars{}.Check(c, s) }

// StartVars are the placeholders a kind fills in when it starts a target
// (in its command, environment and directory), where they are not those
// of most kinds: every kind fills in {{state_dir}}, {{replica}}, the
// configured fakes' and the declared dependencies' (harness.Env.Vars);
// most also pick a {{port}}. The zero StartVars is most kinds'.
type StartVars struct {
	// Extra are the further placeholders the kind fills in, such as a
	// consumer's {{broker.url}}.
	Extra []string
	// NoPort, when not empty, says that the kind picks no {{port}}, and
	// is the message that refuses one.
	NoPort string
}

// Check checks the placeholders of s, a string a target starts with (a
// command's argument, an environment value, a directory, a URL), against
// v, and says whether it uses {{port}} (never, when v.NoPort is set: it
// is refused then).
func (v StartVars) Check(c *Checker, s string) (usesPort bool) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		c.Errorf("%s", p)
	}
	for _, name := range names {
		i := slices.IndexFunc(c.file.Fakes, func(f FakePlaceholder) bool { return f.Name == name })
		switch {
		case name == PhPort && v.NoPort != "":
			c.Errorf("%s", v.NoPort)
		case name == PhPort:
			usesPort = true
		case name == PhStateDir, name == PhReplica, slices.Contains(v.Extra, name):
		case c.envNotAllowed(name):
		case c.depPlaceholder(name):
		case i >= 0:
			if fake := c.file.Fakes[i].Fake; !c.file.Configured(fake) {
				c.Errorf("{{%s}} needs the %s fake, which is not configured: add `fakes: {%s: {}}` at the top level of the file", name, fake, fake)
			}
		default:
			c.Errorf("unknown placeholder {{%s}} (allowed here: %s)", name, strings.Join(v.allowed(c), ", "))
		}
	}
	return usesPort
}

// allowed are the placeholders v allows, as the file stands: those of
// the fakes it configures and of the dependencies the target declares.
func (v StartVars) allowed(c *Checker) []string {
	var names []string
	if v.NoPort == "" {
		names = append(names, PhPort)
	}
	names = append(names, PhStateDir, PhReplica)
	names = append(names, v.Extra...)
	for _, f := range c.file.Fakes {
		if c.file.Configured(f.Fake) {
			names = append(names, f.Name)
		}
	}
	for _, d := range c.file.Deps {
		for _, field := range depFields {
			names = append(names, PhDeps+d+"."+field)
		}
	}
	return names
}

// Uses says which of an intent's own placeholders a template uses.
type Uses struct{ Key, Marker bool }

// Or is what u or o uses.
func (u Uses) Or(o Uses) Uses { return Uses{u.Key || o.Key, u.Marker || o.Marker} }

// IntentTemplate checks the placeholders of a string the harness fills
// in per intent (an operation's path, header value, body or args; an
// event's; a tool's argument): {{key}}, {{marker}}, {{input.NAME}} of
// the declared inputs, and extra, the further names allowed where it is
// used (a webhook body's {{created}}); owner names what declares the
// inputs ("operation").
func (c *Checker) IntentTemplate(s, owner string, inputs []string, extra ...string) (used Uses) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		c.Errorf("%s", p)
	}
	for _, name := range names {
		switch {
		case name == PhKey:
			used.Key = true
		case name == PhMarker:
			used.Marker = true
		case slices.Contains(extra, name):
		case c.envNotAllowed(name):
		case strings.HasPrefix(name, PhInput):
			input := strings.TrimPrefix(name, PhInput)
			switch {
			case slices.Contains(inputs, input):
			case len(inputs) == 0:
				c.Errorf("{{%s}} uses input %q, but this %s declares no inputs: declare it under inputs, e.g. inputs: {%s: {int: [1, 100]}}", name, input, owner, input)
			default:
				c.Errorf("{{%s}} uses input %q, which this %s does not declare (%sdeclared inputs: %s)", name, input, owner, schema.DidYouMean(input, inputs), strings.Join(inputs, ", "))
			}
		default:
			allowed := append([]string{PhKey, PhMarker}, extra...)
			if len(inputs) == 0 {
				allowed = append(allowed, PhInput+"NAME for a declared input")
			}
			for _, in := range inputs {
				allowed = append(allowed, PhInput+in)
			}
			c.Errorf("unknown placeholder {{%s}} (allowed here: %s)", name, strings.Join(allowed, ", "))
		}
	}
	return used
}

// MarkerOnly reports placeholders other than {{marker}} in a read-back.
func (c *Checker) MarkerOnly(s string) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		c.Errorf("%s", p)
	}
	for _, n := range names {
		if n != PhMarker && !c.envNotAllowed(n) {
			c.Errorf("unknown placeholder {{%s}}: a read-back may use {{marker}}", n)
		}
	}
}

// SortedKeys returns the keys of m, sorted.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
