package section

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
)

// Start is a command that starts a target. The harness runs it in its own
// process group, so that it can kill and restart the whole target.
type Start struct {
	// Command is the program and its arguments. Required, non-empty. It may
	// use {{port}}, {{state_dir}}, {{replica}} (which of the replicas, from
	// 0), a fake's {{fakes.NAME.url}} (and the email fake's SMTP address,
	// {{fakes.email.smtp}}) and a dependency's {{deps.NAME.url}}. A program
	// given as a relative path (./server) is taken from Dir, else from the
	// configuration file's directory; its arguments are passed as written,
	// so a relative path among them (a script an interpreter runs) is
	// found from the working directory, Dir.
	Command []string `yaml:"command,flow"`
	// Env holds the target's environment variables; values may use
	// placeholders as Command does, and {{env.NAME}}, a variable of
	// idemcheck's own environment, never printed. The target is given
	// these and only a few of idemcheck's own (PATH, HOME, TMPDIR,
	// LANG, LC_*, USER, TZ…, and the names IDEMCHECK_SAFE_ENV lists).
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the working directory, relative to the configuration file's
	// directory; empty means the one idemcheck runs in.
	Dir string `yaml:"dir,omitempty"`
	// Ready is how the harness knows that the target is up.
	Ready Ready `yaml:"ready"`
}

// Ready is a readiness probe: an HTTP GET that must answer 2xx.
type Ready struct {
	// Path is requested under the target's URL. Default DefaultReadyPath.
	Path string `yaml:"path"`
	// Timeout bounds the wait for readiness. Default DefaultReadyTimeout.
	Timeout Duration `yaml:"timeout"`
}

// Defaults of readiness.
const (
	DefaultReadyPath    = "/"
	DefaultReadyTimeout = 10 * time.Second
)

// Rules implements schema.Ruler.
func (Start) Rules(r *schema.Rules) {
	r.Field("command").Required(`the program that starts the target and its arguments, as a list, such as ["./server", "--port", "{{port}}"]`)
	r.Field("env").Keys().Pattern(EnvName, BadEnvName)
}

// Rules implements schema.Ruler.
func (Ready) Rules(r *schema.Rules) {
	r.Field("path").Pattern(SlashPath, BadSlashPath)
}

// Check checks the start command's program and placeholders.
func (s *Start) Check(c *Checker) {
	CheckCommand(c.Field("command"), s.Command)
	CheckEnv(c.Field("env"), s.Env)
	c.Field("dir").TargetTemplate(s.Dir)
}

// UsesPort reports whether the start command or its environment uses
// {{port}}, the port the harness picks at every start. A nil Start uses
// none.
func (s *Start) UsesPort() bool {
	if s == nil {
		return false
	}
	for _, v := range slices.Concat(s.Command, slices.Collect(maps.Values(s.Env))) {
		if slices.Contains(Placeholders(v), PhPort) {
			return true
		}
	}
	return false
}

// Defaults fills in the readiness probe's defaults.
func (r *Ready) Defaults() {
	if r.Path == "" {
		r.Path = DefaultReadyPath
	}
	if r.Timeout == 0 {
		r.Timeout = Duration(DefaultReadyTimeout)
	}
}

// CheckCommand checks a command a target is started with: a program name,
// and the placeholders of a target. It says whether it uses {{port}}.
func CheckCommand(c *Checker, command []string) (usesPort bool) {
	return StartVars{}.CheckCommand(c, command)
}

// CheckCommand checks a command a target is started with: a program
// name, and the placeholders v allows. It says whether it uses {{port}}.
func (v StartVars) CheckCommand(c *Checker, command []string) (usesPort bool) {
	for i, arg := range command {
		if i == 0 && strings.TrimSpace(arg) == "" {
			c.Index(i).Errorf("the program name must not be empty")
		}
		usesPort = v.Check(c.Index(i), arg) || usesPort
	}
	return usesPort
}

// CheckEnv checks the environment of a target's process: the
// placeholders of a target, and {{env.NAME}}. It says whether it uses
// {{port}}.
func CheckEnv(c *Checker, env map[string]string) (usesPort bool) {
	return StartVars{}.CheckEnv(c, env)
}

// CheckEnv checks the environment of a target's process: the
// placeholders v allows, and {{env.NAME}}. It says whether it uses
// {{port}}.
func (v StartVars) CheckEnv(c *Checker, env map[string]string) (usesPort bool) {
	for _, k := range SortedKeys(env) {
		kc := c.Key(k)
		usesPort = v.Check(kc, kc.EnvRefs(env[k])) || usesPort
	}
	return usesPort
}

// Program is what a target that idemcheck runs as it is called writes,
// inline in its section: a cli tool's command (run once per call), a
// stdio mcp server's (run once per session).
type Program struct {
	// Command is the program and its leading arguments, such as
	// ["./ordertool", "--store", "jsonl"] (a cli tool's; each call appends
	// its operation's args) or ["./mcpserver"] (a stdio mcp server's). It
	// may use {{port}}, {{state_dir}}, a fake's {{fakes.NAME.url}} (and
	// the email fake's SMTP address, {{fakes.email.smtp}}) and a
	// dependency's {{deps.NAME.url}}, as Env and Dir may.
	Command []string `yaml:"command,omitempty,flow"`
	// Env holds the program's environment variables; values may use the
	// placeholders Command may, and {{env.NAME}}, a variable of
	// idemcheck's own environment. The program is given these and only a
	// few of idemcheck's own (PATH, HOME, TMPDIR, LANG, LC_*, USER, TZ…,
	// and the names IDEMCHECK_SAFE_ENV lists).
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is the program's working directory, relative to the
	// configuration file's directory; empty means the one idemcheck runs
	// in. A relative program in Command is taken from it.
	Dir string `yaml:"dir,omitempty"`
}

// Rules implements schema.Ruler.
func (Program) Rules(r *schema.Rules) {
	r.Field("env").Keys().Pattern(EnvName, BadEnvName)
}

// Check checks the program's name and placeholders.
func (p *Program) Check(c *Checker) {
	CheckCommand(c.Field("command"), p.Command)
	CheckEnv(c.Field("env"), p.Env)
	c.Field("dir").TargetTemplate(p.Dir)
}

// Commands implements Commander.
func (p *Program) Commands() []Command {
	return []Command{{Command: p.Command, Env: p.Env, Dir: p.Dir}}
}
