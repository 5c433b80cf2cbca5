package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// Defaults for Config.
const (
	DefaultKeyFlag      = "--idempotency-key"
	DefaultDryRunFlag   = "--dry-run"
	DefaultEffectJSON   = "effect"
	DefaultIdentityJSON = "data.id"
	DefaultTimeout      = 10 * time.Second
	// ExitTempFail is EX_TEMPFAIL from sysexits.h: "a temporary failure;
	// the user is invited to retry". It is the default of RetryExitCodes.
	ExitTempFail = 75
)

// Kind is the kind of target this adapter reaches.
const Kind = "cli"

// Operation is one command of the tool. Args are appended to the target's
// command; each may use {{key}}, {{marker}} and {{input.NAME}}.
type Operation struct {
	Name     string
	Mutating bool
	Args     []string
	Inputs   map[string]harness.Input
}

// Config describes a CLI target.
type Config struct {
	Name string
	// Command is the argv prefix every call starts with, e.g.
	// ["./ordertool", "--store", "jsonl"]. Command[0] is looked up on PATH
	// unless it contains a slash; a relative path is relative to Dir.
	Command []string
	// Env holds variables added to the harness's environment.
	Env map[string]string
	// Dir is the working directory; "" is the harness's.
	Dir string
	// KeyFlag is the flag that carries the idempotency key. Default
	// DefaultKeyFlag.
	KeyFlag string
	// DryRunFlag asks for a dry run. Default DefaultDryRunFlag; set
	// NoDryRun when the tool has none.
	DryRunFlag string
	NoDryRun   bool
	// Effect and Identity are dotted JSON paths in the reply on stdout.
	// Defaults DefaultEffectJSON and DefaultIdentityJSON.
	Effect   string
	Identity string
	// Timeout bounds each call; a call still running then is killed.
	// Default DefaultTimeout.
	Timeout time.Duration
	// RetryExitCodes are the exit codes that mean "temporary failure,
	// retry with the same key": the outcome is info, as for an HTTP 5xx.
	// Nil means {ExitTempFail}; an empty, non-nil slice means none.
	RetryExitCodes []int
	// Concurrency is how many calls of the tool may run at once, 0 for
	// the harness's own numbers: the other keys before a late retry go
	// that many at a time, and the generated trials run on that many
	// workers (each with a state directory of its own). A burst still
	// sends its copies together: whether the tool takes them is what
	// concurrent.duplicates tests.
	Concurrency int
	Operations  []Operation
}

// Target is a command-line tool behind the adapter. Its methods are safe
// for concurrent use.
type Target struct {
	cfg  Config
	path string   // resolved Command[0]
	env  []string // process.OwnBaseEnv() plus cfg.Env
	ops  map[string]*Operation
	info harness.TargetInfo

	mu      sync.Mutex
	running map[*invocation]struct{}
	closed  bool
}

// Concurrency implements harness.Concurrent.
func (t *Target) Concurrency() int { return t.cfg.Concurrency }

var (
	_ harness.Concurrent = (*Target)(nil)
	_ harness.Target     = (*Target)(nil)
	_ harness.Crasher    = (*Target)(nil)
	_ harness.Burster    = (*Target)(nil)
)

// New checks cfg, applies its defaults and finds the tool's executable.
// It starts nothing: every Call runs the tool afresh.
func New(cfg Config) (*Target, error) {
	if len(cfg.Command) == 0 || strings.TrimSpace(cfg.Command[0]) == "" {
		return nil, fmt.Errorf("cli target %s: no command: set it to the tool's argv prefix, e.g. [\"./ordertool\", \"--store\", \"jsonl\"]", cfg.Name)
	}
	if len(cfg.Operations) == 0 {
		return nil, fmt.Errorf("cli target %s: no operations", cfg.Name)
	}
	if cfg.KeyFlag == "" {
		cfg.KeyFlag = DefaultKeyFlag
	}
	if cfg.DryRunFlag == "" {
		cfg.DryRunFlag = DefaultDryRunFlag
	}
	if cfg.Effect == "" {
		cfg.Effect = DefaultEffectJSON
	}
	if cfg.Identity == "" {
		cfg.Identity = DefaultIdentityJSON
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RetryExitCodes == nil {
		cfg.RetryExitCodes = []int{ExitTempFail}
	}
	cfg.Command = slices.Clone(cfg.Command)
	path, err := process.Resolve(cfg.Command[0], cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("cli target %s: %w", cfg.Name, err)
	}
	t := &Target{
		cfg:  cfg,
		path: path,
		env:  append(process.OwnBaseEnv(), process.EnvList(cfg.Env, "")...),
		ops:  map[string]*Operation{},
		info: harness.TargetInfo{Name: cfg.Name, Kind: Kind, Request: "arguments",
			// A tool takes its key as a flag, says its effect on stdout and
			// may have a dry-run flag.
			Capabilities: &harness.Capabilities{Keys: true, EffectField: true, DryRun: true}},
		running: map[*invocation]struct{}{},
	}
	for i := range cfg.Operations {
		op := &t.cfg.Operations[i]
		if _, dup := t.ops[op.Name]; dup {
			return nil, fmt.Errorf("cli target %s: two operations are called %q", cfg.Name, op.Name)
		}
		t.ops[op.Name] = op
		t.info.Operations = append(t.info.Operations, harness.Operation{
			Name: op.Name, Mutating: op.Mutating, Inputs: op.Inputs,
			DryRun: op.Mutating && !cfg.NoDryRun,
		})
	}
	return t, nil
}

// Info implements harness.Target.
func (t *Target) Info() harness.TargetInfo { return t.info }

// Supports implements harness.Target: downstream faults, the crash faults
// whose instant the fakes report, and client timeouts. Proxy faults and
// crash-after-reply need a transport between client and target; a
// command has none.
func (t *Target) Supports(f faults.Fault) bool {
	switch x := f.(type) {
	case faults.CrashFault:
		p := x.CrashPoint()
		return p == faults.BeforeEffect || p == faults.AfterEffect || faults.OnCommit(p)
	case faults.DownstreamFault:
		return true
	case *faults.ClientTimeout:
		return true
	case faults.ProxyFault:
		return false // hang, and any other fault that needs the proxy
	case faults.ClientFault:
		return true
	}
	return false
}

// Kill implements harness.Crasher: it SIGKILLs the process group of every
// invocation running now (during a crash fault, the one attempt's) and
// returns once they are dead and reaped. With nothing running it does
// nothing.
func (t *Target) Kill() error {
	t.mu.Lock()
	list := make([]*invocation, 0, len(t.running))
	for in := range t.running {
		list = append(list, in)
	}
	t.mu.Unlock()
	for _, in := range list {
		in.kill(killCrash)
	}
	for _, in := range list {
		<-in.done
	}
	return nil
}

// Restart implements harness.Crasher. There is nothing to restart: the
// next call starts the tool afresh, and its state lives in its state
// directory.
func (t *Target) Restart(ctx context.Context) error { return ctx.Err() }

// Close kills whatever is still running (nothing, after a run) and
// refuses further calls.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return t.Kill()
}

// argv builds the command line of a call.
func (t *Target) argv(c harness.Call) ([]string, *Operation, error) {
	op, ok := t.ops[c.Operation]
	if !ok {
		return nil, nil, fmt.Errorf("unknown operation %q", c.Operation)
	}
	vars := c.Vars()
	argv := slices.Clone(t.cfg.Command)
	for _, a := range op.Args {
		x, err := harness.Expand(a, vars)
		if err != nil {
			return nil, nil, fmt.Errorf("operation %s: %w", op.Name, err)
		}
		argv = append(argv, x)
	}
	// A safe operation needs no key, and a real tool's read command
	// seldom accepts the flag.
	if c.Key != "" && op.Mutating {
		argv = append(argv, t.cfg.KeyFlag, c.Key)
	}
	if c.DryRun {
		if t.cfg.NoDryRun || !op.Mutating {
			return nil, nil, fmt.Errorf("operation %s has no dry-run mode", op.Name)
		}
		argv = append(argv, t.cfg.DryRunFlag)
	}
	return argv, op, nil
}

// Call implements harness.Target: it runs the tool once and reads its
// exit status and reply.
func (t *Target) Call(ctx context.Context, c harness.Call) harness.Reply {
	argv, _, err := t.argv(c)
	if err != nil {
		return harness.Reply{Outcome: harness.Fail, Error: err.Error()}
	}
	var gaveUp time.Duration
	if cf, ok := c.Fault.(faults.ClientFault); ok && t.Supports(c.Fault) {
		// The client gives up after the fault's timeout, and the tool
		// runs to its end all the same (within the target's timeout), as
		// an HTTP target behind the fault proxy does: its reply is lost.
		// Whether the tool had done its work when the client gave up is
		// then never a matter of timing; a tool killed half-way is the
		// crash faults' to show, at the instant the fakes report.
		gaveUp = cf.ClientTimeout()
	}
	cmd := t.command(argv)
	in, err := t.start(cmd)
	if err != nil {
		return t.notStarted(err)
	}
	res := t.wait(ctx, in, cmd, t.cfg.Timeout)
	if op := t.ops[c.Operation]; op != nil && !op.Mutating {
		res.safe = true
	}
	return t.reply(res, t.cfg.Timeout, faultName(c.Fault), gaveUp)
}

func faultName(f faults.Fault) string {
	if f == nil {
		return ""
	}
	return f.Name()
}
