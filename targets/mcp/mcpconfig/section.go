package mcpconfig

import (
	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
)

// ConfigKind describes mcp targets to the configuration file.
var ConfigKind = section.Kind{
	Name: mcptarget.Kind,
	Doc:  "an MCP server's tools, over stdio (command) or streamable HTTP (url)",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"operations": "an mcp target lists tools (or none: every tool tools/list returns), each with its name",
	},
}

// argName is a tool argument or _meta field name: what JSON allows, kept
// to printable names without spaces; dots reach into nested objects.
const argName = `^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$`

var argNameRE = lazyregexp.New(argName)

// ValidArgName reports whether name can be written as a key_argument,
// key_meta or dry_run_argument.
func ValidArgName(name string) bool { return argNameRE.MatchString(name) }

// Section is an mcp target's section of the configuration file: exactly
// one of Command (a stdio server) and URL (a streamable HTTP server).
type Section struct {
	section.Common  `yaml:",inline"`
	section.Program `yaml:",inline"`
	// URL is the endpoint of a streamable HTTP server, such as
	// "http://127.0.0.1:{{port}}/mcp"; it may use {{env.NAME}}. Its host
	// must be loopback unless the target allows remote hosts; {{port}}
	// needs start.
	URL string `yaml:"url,omitempty"`
	// Start, when set, is how the harness starts (and restarts) a
	// streamable HTTP server itself; its readiness path is fetched under
	// the URL's origin. A stdio server is started from Command instead.
	Start *section.Start `yaml:"start,omitempty"`
	// Remote allows a URL whose host is not loopback. idemcheck sends
	// duplicate and faulty calls on purpose, so this is opt-in.
	Remote bool `yaml:"allow_remote,omitempty"`
	// Effect is where a tool result says what it did: a dotted path in
	// its structuredContent (or its text, parsed as JSON). Default
	// "effect".
	Effect section.Locator `yaml:"effect,omitempty"`
	// KeyArgument names the string tool argument that carries the
	// idempotency key; "" means the tools take none. Nil: guessed per tool
	// from its input schema (the first of idempotency_key, idempotencyKey
	// and request_id it has).
	KeyArgument *string `yaml:"key_argument,omitempty"`
	// KeyMeta names the field of the call's _meta that carries the key
	// instead (e.g. "idempotency-key").
	KeyMeta string `yaml:"key_meta,omitempty"`
	// DryRunArgument names the boolean tool argument that asks for a dry
	// run; "" means none. Nil: guessed from the schema (dry_run).
	DryRunArgument *string `yaml:"dry_run_argument,omitempty"`
	// Tools lists the tools to test, with overrides of what tools/list
	// says; absent means every tool the server lists.
	Tools []ToolSection `yaml:"tools,omitempty"`
}

// ToolSection is one tool of an mcp target, as tools/list names it, with
// what the configuration overrides.
type ToolSection struct {
	// Name is the tool's name. Required.
	Name string `yaml:"name"`
	// Mutating overrides the tool's annotations (a tool is mutating
	// unless annotated readOnlyHint: true); a disagreement is reported.
	Mutating *bool `yaml:"mutating,omitempty"`
	// Marker is the string argument {{marker}} goes into; default the
	// first free-text string property of the input schema.
	Marker string `yaml:"marker,omitempty"`
	// KeyArgument, KeyMeta and DryRunArgument override the target's.
	KeyArgument    *string `yaml:"key_argument,omitempty"`
	KeyMeta        string  `yaml:"key_meta,omitempty"`
	DryRunArgument *string `yaml:"dry_run_argument,omitempty"`
	// Arguments are fixed arguments merged over the generated ones; a
	// string may use {{marker}} and {{input.NAME}}.
	Arguments map[string]any `yaml:"arguments,omitempty"`
	// Inputs override the values generated from the schema, by argument
	// name (dotted for a nested object's property).
	Inputs map[string]section.Input `yaml:"inputs,omitempty"`
	// Effect and Identity override the target's.
	Effect   *section.Locator `yaml:"effect,omitempty"`
	Identity *section.Locator `yaml:"identity,omitempty"`
}

// placementRules are the rules of where the key and the dry-run flag go.
func placementRules(r *schema.Rules) {
	r.Field("key_argument").Pattern(`^(`+argName[1:len(argName)-1]+`)?$`, schema.Sprintf(`invalid argument name %q, such as "idempotency_key"; "" means the tools take no key`))
	r.Field("key_meta").Pattern(argName, schema.Sprintf(`invalid _meta field name %q, such as "idempotency-key"`))
	r.Field("dry_run_argument").Pattern(`^(`+argName[1:len(argName)-1]+`)?$`, schema.Sprintf(`invalid argument name %q, such as "dry_run"; "" means none`))
}

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	placementRules(r)
}

// Rules implements schema.Ruler.
func (ToolSection) Rules(r *schema.Rules) {
	r.Field("name").Required("the tool's name, as tools/list gives it")
	r.Field("marker").Pattern(argName, schema.Sprintf(`invalid argument name %q: name the string argument {{marker}} goes into, such as "description"`))
	placementRules(r)
	r.Field("arguments").Keys().Pattern(argName, schema.Sprintf("invalid argument name %q"))
	r.Field("inputs").Keys().Pattern(argName, schema.Sprintf("invalid argument name %q: use the schema's property name, dotted for a nested object's (address.city)"))
}

// Check implements section.Target: exactly one of command (stdio) and
// url (streamable HTTP), where the key and the dry-run flag go, and the
// tools.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	cmd := c.Field("command")
	switch {
	case len(s.Command) == 0 && s.URL == "":
		cmd.Missing(`the server: command (a stdio server idemcheck starts, such as ["./mcpserver"]) or url (a streamable HTTP endpoint, such as "http://127.0.0.1:{{port}}/mcp")`)
	case len(s.Command) > 0 && s.URL != "":
		cmd.Errorf("set command (a stdio server) or url (a streamable HTTP server), not both")
	}
	s.Program.Check(c)
	if len(s.Command) > 0 && s.Start != nil {
		c.Field("start").Errorf("a stdio server is started from command, one process per session; start is for a streamable HTTP server (url)")
	}
	section.CheckURL(c.Field("url"), s.URL, section.URLPolicy{Remote: s.Remote, Started: s.Start != nil, StartPort: s.Start.UsesPort()})
	if s.Start != nil {
		s.Start.Check(c.Field("start"))
	}
	if s.URL != "" && len(s.Env) > 0 {
		c.Field("env").Errorf("env is for a stdio server (command); a streamable HTTP server's environment goes under start: {env: …}")
	}
	placements(c, s.KeyArgument, s.KeyMeta)
	noHeaders := "a tool result has no headers: use json, a path in its structuredContent (or its text, parsed as JSON), such as \"data.id\""
	s.Effect.Check(c.Field("effect"), false)
	s.Effect.NoHeader(c.Field("effect"), noHeaders)
	s.Identity.NoHeader(c.Field("identity"), noHeaders)
	tools := c.Field("tools")
	first := map[string]int{}
	for i := range s.Tools {
		tool, tc := &s.Tools[i], tools.Index(i)
		if j, dup := first[tool.Name]; dup && tool.Name != "" {
			tc.Field("name").Errorf("duplicate tool %q (already listed as tools[%d] at line %d)", tool.Name, j, tools.Index(j).Field("name").Line())
		} else {
			first[tool.Name] = i
		}
		placements(tc, tool.KeyArgument, tool.KeyMeta)
		section.CheckInputs(tc.Field("inputs"), tool.Inputs)
		inputs := section.SortedKeys(tool.Inputs)
		for _, name := range section.SortedKeys(tool.Arguments) {
			if str, ok := tool.Arguments[name].(string); ok {
				tc.Field("arguments").Key(name).IntentTemplate(str, "tool", inputs)
			}
		}
		for _, l := range []struct {
			f string
			l *section.Locator
		}{{"effect", tool.Effect}, {"identity", tool.Identity}} {
			if l.l != nil {
				l.l.Check(tc.Field(l.f), true)
				l.l.NoHeader(tc.Field(l.f), "a tool result has no headers: use json")
			}
		}
	}
}

// placements checks that the key goes one way.
func placements(c *section.Checker, keyArg *string, keyMeta string) {
	if keyArg != nil && keyMeta != "" {
		c.Field("key_meta").Errorf("set key_argument (the key is a tool argument) or key_meta (a _meta field), not both")
	}
}

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	if s.Effect == (section.Locator{}) {
		s.Effect.JSON = section.DefaultEffectJSON
	}
	if s.Start != nil {
		s.Start.Ready.Defaults()
	}
	for i := range s.Tools {
		section.DefaultInputs(s.Tools[i].Inputs)
	}
}

// Spec implements section.Target: a stdio server started from command (a
// process per session), or a streamable HTTP server at url, started with
// start when set.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	cfg := mcptarget.Config{
		Name: s.Name, URL: b.Env(s.URL),
		Key:    placement(s.KeyArgument, s.KeyMeta),
		Effect: s.Effect.JSON, Identity: s.Identity.JSON,
		Timeout: s.Timeout.Std(),
		ByDelta: section.ByDelta(s.Observe),
	}
	cfg.Command, cfg.Env, cfg.Dir = b.Command(s.Command, s.Env, s.Dir)
	if d := dryRunPlacement(s.DryRunArgument); d != nil {
		cfg.DryRun = *d
	}
	for _, tool := range s.Tools {
		mt := mcptarget.Tool{
			Name: tool.Name, Mutating: tool.Mutating, Marker: tool.Marker,
			Arguments: tool.Arguments, Inputs: section.HarnessInputs(tool.Inputs),
			DryRun: dryRunPlacement(tool.DryRunArgument),
		}
		if tool.KeyArgument != nil || tool.KeyMeta != "" {
			p := placement(tool.KeyArgument, tool.KeyMeta)
			mt.Key = &p
		}
		if tool.Effect != nil {
			mt.Effect = tool.Effect.JSON
		}
		if tool.Identity != nil {
			mt.Identity = tool.Identity.JSON
		}
		cfg.Tools = append(cfg.Tools, mt)
	}
	return mcptarget.Spec(cfg, b.Launch(s.Start), b.Fakes()...)
}

// placement says where the key goes: a _meta field, an argument, none
// (key_argument: ""), or the zero value: guessed from each schema.
func placement(arg *string, meta string) mcptarget.Placement {
	switch {
	case meta != "":
		return mcptarget.Placement{In: mcptarget.InMeta, Name: meta}
	case arg == nil:
		return mcptarget.Placement{}
	case *arg == "":
		return mcptarget.Placement{In: mcptarget.InNone}
	}
	return mcptarget.Placement{In: mcptarget.InArgument, Name: *arg}
}

func dryRunPlacement(arg *string) *mcptarget.Placement {
	if arg == nil {
		return nil
	}
	if *arg == "" {
		return &mcptarget.Placement{In: mcptarget.InNone}
	}
	return &mcptarget.Placement{In: mcptarget.InArgument, Name: *arg}
}

// Commands implements section.Commander: a streamable HTTP server's
// start, or a stdio server's command.
func (s *Section) Commands() []section.Command {
	if s.Start != nil {
		return section.StartCommands(s.Start)
	}
	return s.Program.Commands()
}
