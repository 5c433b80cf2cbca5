package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/targets/consumer"
)

// helpTimeout bounds each help command init runs.
const helpTimeout = 5 * time.Second

// maxHelp bounds how much of a help text init reads.
const maxHelp = 256 << 10

// cmdInit writes a starter configuration for a command-line tool: it runs
// COMMAND --help and COMMAND help, lists the subcommands it finds as
// operations, and leaves what only the user knows (is it mutating? where
// does the marker go?) as TODOs that `idemcheck run` reports with their
// line until they are filled in.
func cmdInit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := newFlagSet("init")
	var out, name string
	flags.StringVar(&out, "o", "", "write the configuration to `FILE` (refuses to overwrite) instead of stdout")
	flags.StringVar(&name, "name", "", "the `NAME` of the target (default: the command's base name)")
	mcp := flags.Bool("mcp", false, "the command is an MCP server on stdio: list its tools instead of reading its help")
	mcpURL := flags.String("mcp-url", "", "write a starter for the MCP server whose streamable HTTP endpoint is `URL`")
	isConsumer := flags.Bool("consumer", false, "write a starter for a message-queue consumer (COMMAND, if given, starts it) reading --topic on --broker")
	broker := flags.String("broker", consumer.Brokers[0], "with --consumer: the `BROKER` idemcheck starts: "+strings.Join(consumer.Brokers, ", "))
	topic := flags.String("topic", brokers.DefaultTopic, "with --consumer: the `TOPIC` (stream, queue) the consumer reads")
	httpURL := flags.String("http", "", "write a starter for the HTTP API at base `URL` that has no OpenAPI description (COMMAND, if given, starts it), with what to fill in")
	webhookURL := flags.String("webhook", "", "write a starter for the webhook handler at base `URL` (COMMAND, if given, starts it), with what to fill in")
	var spec string
	flags.StringVar(&spec, "openapi", "", "write the configuration of an HTTP API from its OpenAPI 3.0/3.1 description `SPEC` (YAML or JSON)")
	if err := flags.Parse(args); err != nil {
		return flagError(flags, err, stdout)
	}
	var modes []string
	for _, m := range []struct {
		on   bool
		flag string
	}{{spec != "", "--openapi"}, {*httpURL != "", "--http"}, {*webhookURL != "", "--webhook"}, {*isConsumer, "--consumer"}, {*mcp, "--mcp"}, {*mcpURL != "", "--mcp-url"}} {
		if m.on {
			modes = append(modes, m.flag)
		}
	}
	if len(modes) > 1 {
		return usageErr("init: %s: give one kind of target at a time", strings.Join(modes, " and "))
	}
	if spec != "" {
		return initOpenAPI(ctx, spec, name, out, flags.Args(), stdout, stderr)
	}
	command := flags.Args()
	if *httpURL != "" {
		return initHTTP(name, *httpURL, out, command, stdout, stderr)
	}
	if *webhookURL != "" {
		return initWebhook(name, *webhookURL, out, command, stdout, stderr)
	}
	if *isConsumer {
		return initConsumer(name, *broker, *topic, out, command, stdout, stderr)
	}
	if *mcp || *mcpURL != "" {
		return cmdInitMCP(ctx, name, out, command, *mcpURL, stdout, stderr)
	}
	if len(command) == 0 || command[0] == "" {
		return usageErr("init: no command: write idemcheck init [-o FILE] -- COMMAND [ARG…], e.g. idemcheck init -- ./ordertool --store jsonl")
	}
	if _, err := exec.LookPath(command[0]); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("init: cannot run %q: %v", command[0], errors.Unwrap(err)),
			hint: "give the tool's path (with a slash, e.g. ./mytool) or put it on PATH"}
	}
	if name == "" {
		name = config.CommandName(command)
	}
	var helps []string
	for _, extra := range []string{"--help", "help"} {
		text, err := helpText(ctx, append(slices.Clone(command), extra))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		helps = append(helps, text)
	}
	subs := config.Discover(helps)
	if len(subs) == 0 {
		fmt.Fprintf(stderr, "idemcheck init: found no subcommands in the help of %s; the configuration lists one operation to fill in\n", strings.Join(command, " "))
	}
	doc := config.Starter(name, command, subs, strings.Join(helps, "\n"))
	if err := writeStarter(out, doc, stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(stderr, "idemcheck init: wrote %s with %s; fill in every TODO, then run: idemcheck run -c %s\n", out, plural(max(len(subs), 1), "operation", "operations"), reports.ShellQuote(out))
	return nil
}

// writeStarter writes a starter configuration to stdout, or to the new
// file out (never overwriting one).
func writeStarter(out, doc string, stdout io.Writer) error {
	if out == "" {
		_, err := io.WriteString(stdout, doc)
		return err
	}
	return writeNew(out, doc)
}

// writeNew writes doc to a file that must not exist yet.
func writeNew(out, doc string) error {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return &exitError{code: exitUsage, err: fmt.Errorf("init: %s already exists; idemcheck init does not overwrite a file", out),
			hint: "remove it, or write to another file with -o"}
	}
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("init: %v", err)}
	}
	_, werr := io.WriteString(f, doc)
	if err := errors.Join(werr, f.Close()); err != nil {
		return harnessErr(fmt.Errorf("init: writing %s: %w", out, err), "")
	}
	return nil
}

// helpText runs argv in its own process group, with no input, and returns
// what it printed on stdout and stderr, whatever its exit status: many
// tools print their help to stderr and exit 2. A tool that does not end
// within helpTimeout is killed, and what it printed so far is used.
func helpText(ctx context.Context, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, helpTimeout)
	defer cancel()
	buf := limitedBuffer{max: maxHelp, full: cancel}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // nothing it started outlives it
	}
	return buf.String(), err
}

// limitedBuffer keeps the first max bytes written to it and calls full,
// once, when it has them: a help that never ends is cut there. It has no
// ReadFrom, so that io.Copy cannot go around the cap.
type limitedBuffer struct {
	buf  []byte
	max  int
	full func()
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
		if len(b.buf) == b.max && b.full != nil {
			b.full()
		}
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string { return string(b.buf) }
