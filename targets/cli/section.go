package cli

import (
	"slices"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
)

// ConfigKind describes cli targets to the configuration file.
var ConfigKind = section.Kind{
	Name: "cli",
	Doc:  "a command-line tool, run once per call",
	New:  func() section.Target { return &Section{} },
	Hints: map[string]string{
		"operations.effect":   "set effect on the target: a cli operation cannot override it",
		"operations.identity": "set identity on the target: a cli operation cannot override it",
	},
}

// Section is a cli target's section of the configuration file: the
// tool's command, env and dir (section.Program), and how it is called.
type Section struct {
	section.Common  `yaml:",inline"`
	section.Program `yaml:",inline"`
	// KeyFlag is the flag that carries the idempotency key; a call with a
	// key appends it and the key as two arguments. Default DefaultKeyFlag.
	KeyFlag string `yaml:"key_flag,omitempty"`
	// DryRunFlag asks the tool for a dry run. Default DefaultDryRunFlag;
	// written as "" it says that the tool has none.
	DryRunFlag *string `yaml:"dry_run_flag,omitempty"`
	// RetryExitCodes are the exit codes that mean "a temporary failure,
	// retry with the same key" (the outcome is unknown, as for an HTTP
	// 5xx). Default [75] (EX_TEMPFAIL); if written, not empty.
	RetryExitCodes []int `yaml:"retry_exit_codes,omitempty,flow"`
	// Effect is where the reply (the JSON the tool prints on stdout) says
	// what it did. Default: the JSON field "effect".
	Effect section.Locator `yaml:"effect,omitempty"`
	// Concurrency is how many calls of the tool may run at once, when
	// its state allows it: the calls that need no order between them
	// (the other keys sent before a late retry) go that many at a time,
	// and the generated trials run on that many workers, each with a
	// state directory of its own. Default: 8 and 4. Bursts send their
	// copies together whatever it says.
	Concurrency int `yaml:"concurrency,omitempty"`
	// Operations are the tool's commands the harness calls. Required: at
	// least one, and names are unique within the target.
	Operations []OperationSection `yaml:"operations,omitempty"`
}

// OperationSection is one command of a cli target.
type OperationSection struct {
	// Name identifies the operation within its target. Required, unique.
	Name string `yaml:"name"`
	// Mutating says whether the command changes state. Required.
	Mutating *bool `yaml:"mutating"`
	// Args are the command's arguments, appended to the target's
	// command; they may use {{key}}, {{marker}} and {{input.NAME}}.
	// Required.
	Args []string `yaml:"args,omitempty,flow"`
	// Inputs are the values the harness generates for {{input.NAME}}.
	Inputs map[string]section.Input `yaml:"inputs,omitempty"`
}

// flag patterns: a flag with its dashes, without its value.
func flagRules(f *schema.Field, example string) {
	f.Pattern(`^(-.*)?$`, func(got any) string {
		return "\"" + got.(string) + "\" is not a flag: write it as the tool expects it, with its dashes, such as \"" + example + "\""
	}).Pattern(`^[^ \t\n=]*$`, schema.Sprintf("invalid flag %q: write the flag's name only; the adapter passes the value as the next argument"))
}

// Rules implements schema.Ruler.
func (Section) Rules(r *schema.Rules) {
	r.Field("command").Required(`the tool's program and leading arguments, as a list, such as ["./ordertool", "--store", "jsonl"]; every call appends an operation's args`)
	flagRules(r.Field("key_flag"), DefaultKeyFlag)
	flagRules(r.Field("dry_run_flag"), DefaultDryRunFlag)
	r.Field("retry_exit_codes").Count(1, 255, func(any) string {
		return `must not be empty: list the exit codes that mean "temporary failure, retry with the same key", or leave it out for the default [75]`
	}).Items().Range(1, 255, schema.Sprintf("%v is not an exit code that means failure: use 1 to 255 (75 is EX_TEMPFAIL)"))
	r.Field("concurrency").Range(1, 64, schema.Sprintf("%v calls at once is out of range: use 1 to 64, or leave it out for the defaults"))
	r.Field("operations").Required("list at least one operation (a command of the tool), with its name, mutating and args")
}

// Rules implements schema.Ruler.
func (OperationSection) Rules(r *schema.Rules) {
	r.Field("name").Required(`give the operation a name, such as "create-order"`)
	r.Field("mutating").Required("say whether the command changes state (mutating: true) or only reads (mutating: false)")
	r.Field("args").Required(`the command's arguments after the target's command, as a list, such as [create-order, --memo, "order {{marker}}"]`)
	r.Field("inputs").Keys().Pattern(section.InputName, section.BadInputName)
}

// Check implements section.Target.
func (s *Section) Check(c *section.Checker) {
	s.Common.Check(c, s)
	s.Program.Check(c)
	noHeaders := `a command's reply has no headers: use json, a path in the JSON it prints on stdout, such as "data.id"`
	s.Effect.Check(c.Field("effect"), false)
	s.Effect.NoHeader(c.Field("effect"), noHeaders)
	s.Identity.NoHeader(c.Field("identity"), noHeaders)
	ops := c.Field("operations")
	names := make([]string, len(s.Operations))
	for i := range s.Operations {
		s.Operations[i].check(ops.Index(i))
		names[i] = s.Operations[i].Name
	}
	ops.Unique("operation", "name", names, " within a target")
}

func (op *OperationSection) check(c *section.Checker) {
	inputs := section.SortedKeys(op.Inputs)
	args := c.Field("args")
	var used section.Uses
	for i, a := range op.Args {
		used = used.Or(args.Index(i).IntentTemplate(a, "operation", inputs))
	}
	section.CheckInputs(c.Field("inputs"), op.Inputs)
	if used.Marker || c.ByDelta() || args.Refused() || len(op.Args) == 0 || op.Mutating == nil {
		return
	}
	if *op.Mutating {
		c.Errorf("mutating operation %q does not use {{marker}}: put {{marker}} in one of its args, where the tool passes it on to its downstream calls (a payment's description, an email's text), so that the fakes can attribute each side effect to the call that caused it, or declare a count observer to attribute by delta", op.Name)
	} else {
		c.Errorf("safe operation %q does not use {{marker}}: put {{marker}} in one of its args, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one), or declare a count observer to attribute by delta", op.Name)
	}
}

// Defaults implements section.Target.
func (s *Section) Defaults() {
	s.Common.Defaults()
	if s.KeyFlag == "" {
		s.KeyFlag = DefaultKeyFlag
	}
	if s.DryRunFlag == nil {
		flag := DefaultDryRunFlag
		s.DryRunFlag = &flag
	}
	if s.RetryExitCodes == nil {
		s.RetryExitCodes = []int{ExitTempFail}
	}
	if s.Effect == (section.Locator{}) {
		s.Effect.JSON = section.DefaultEffectJSON
	}
	for i := range s.Operations {
		section.DefaultInputs(s.Operations[i].Inputs)
	}
}

// Spec implements section.Target: the tool runs once per call, with the
// target's command, environment and directory.
func (s *Section) Spec(b *section.Builder) harness.Spec {
	cfg := Config{
		Name:           s.Name,
		KeyFlag:        s.KeyFlag,
		Effect:         s.Effect.JSON,
		Identity:       s.Identity.JSON,
		Timeout:        s.Timeout.Std(),
		RetryExitCodes: slices.Clone(s.RetryExitCodes),
		Concurrency:    s.Concurrency,
	}
	cfg.Command, cfg.Env, cfg.Dir = b.Command(s.Command, s.Env, s.Dir)
	if s.DryRunFlag != nil {
		cfg.DryRunFlag = *s.DryRunFlag
		cfg.NoDryRun = *s.DryRunFlag == ""
	}
	for _, op := range s.Operations {
		cfg.Operations = append(cfg.Operations, Operation{
			Name: op.Name, Mutating: op.Mutating != nil && *op.Mutating, Args: op.Args, Inputs: section.HarnessInputs(op.Inputs),
		})
	}
	return Spec(cfg, b.Fakes()...)
}
