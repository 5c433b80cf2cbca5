package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/keys"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
	"github.com/idemcheck/idemcheck/targets/mcp/mcpconfig"
)

// listTimeout bounds init's connection to an MCP server and its
// tools/list.
const listTimeout = 20 * time.Second

// initEnvGuesses are the environment variables a starter gives a stdio
// server, and what init sets them to while it lists the tools (the
// server calls nothing then): the fakes' URLs and a fresh state directory.
var initEnvGuesses = []struct{ name, value, listing string }{
	{"PAYMENTS_URL", "{{fakes.payments.url}}", "http://127.0.0.1:9"},
	{"STATE_DIR", "{{state_dir}}", ""},
}

// cmdInitMCP writes a starter configuration for an MCP server: it
// connects (starting command over stdio, or to url), lists the tools, and
// writes each with its annotations as comments, mutating from them, where
// the key and the dry-run flag go and the inputs from its input schema,
// and a TODO only where it cannot know (no string argument for the
// marker).
func cmdInitMCP(ctx context.Context, name, out string, command []string, url string, stdout, stderr io.Writer) error {
	if len(command) == 0 && url == "" {
		return usageErr("init --mcp: no server: write idemcheck init --mcp -- COMMAND [ARG…] for a stdio server, or idemcheck init --mcp-url URL for a streamable HTTP one")
	}
	if len(command) > 0 && url != "" {
		return usageErr("init: --mcp-url and a command: give one server")
	}
	cfg := mcptarget.Config{Name: "init", Command: command, URL: url, Timeout: listTimeout}
	if len(command) > 0 {
		state, err := os.MkdirTemp("", "idemcheck-init-")
		if err != nil {
			return harnessErr(err, "")
		}
		defer os.RemoveAll(state)
		cfg.Env = map[string]string{}
		for _, g := range initEnvGuesses {
			if os.Getenv(g.name) == "" {
				cfg.Env[g.name] = g.listing
				if g.listing == "" {
					cfg.Env[g.name] = state
				}
			}
		}
		if name == "" {
			name = config.CommandName(command)
		}
	} else if name == "" {
		name = "mcp-server"
	}
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	tools, err := mcptarget.List(lctx, cfg)
	if err != nil {
		hint := "check that the command starts an MCP server on stdio"
		if url != "" {
			hint = "check that the server runs and that the URL is its streamable HTTP endpoint" + oncehttp.TLSHint(err.Error())
		}
		return &exitError{code: exitHarness, err: fmt.Errorf("init: cannot list the server's tools: %w", err), hint: hint}
	}
	doc := mcpStarter(name, command, url, tools)
	if err := writeStarter(out, doc, stdout); err != nil {
		return err
	}
	if out != "" {
		fmt.Fprintf(stderr, "idemcheck init: wrote %s with %s; check every TODO, then run: idemcheck run -c %s\n", out, plural(len(tools), "tool", "tools"), reports.ShellQuote(out))
	}
	return nil
}

func mcpStarter(name string, command []string, url string, tools []*sdk.Tool) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("# idemcheck configuration for the MCP server %s, written by idemcheck init from its tools/list.", name)
	w("# Every tool is listed with its annotations as comments; mutating follows readOnlyHint,")
	w("# the key and dry-run arguments and the inputs follow each input schema. Check the guesses.")
	w("version: 1")
	if len(command) > 0 {
		w("fakes:")
		w("  payments: {}   # a Stripe-like fake; point the server's payment calls at {{fakes.payments.url}}")
	} else {
		// A running server cannot be pointed at a fake idemcheck starts.
		w("# fakes:            # for a server idemcheck starts (start:), pointed at {{fakes.payments.url}}")
		w("#   payments: {}   # a Stripe-like fake")
	}
	w("targets:")
	w("  - name: %s", name)
	w("    kind: mcp")
	if len(command) > 0 {
		w("    command: %s   # a stdio server: one process per session", flowList(command))
		w("    env:   # guessed: the fakes' URL and a fresh state directory; remove what the server does not read")
		for _, g := range initEnvGuesses {
			w("      %s: %q", g.name, g.value)
		}
	} else {
		w("    url: %q   # a running server; to have idemcheck start (and crash) it, add start: {command: [...], ready: {path: /healthz}}", url)
	}
	w("    # effect: {json: effect}      # default: where a result says created / noop, in structuredContent")
	w("    # identity: {json: data.id}   # default")
	w("    # observe:   # a server that keeps its effects in its own data (and calls no fake): where idemcheck counts them,")
	w("    #            # by the marker the server stores with each (docs/guides/observers.md)")
	w("    #   - name: store")
	w(`    #     file: {path: "{{state_dir}}/data.json", items: items}   # or sql: {dsn: ..., query: ...}, or mcp: {tool: a read-only tool}`)
	w("    tools:")
	for _, t := range tools {
		writeTool(w, t)
	}
	return b.String()
}

func writeTool(w func(string, ...any), t *sdk.Tool) {
	if d := strings.TrimSpace(t.Description); d != "" {
		if i := strings.IndexByte(d, '\n'); i >= 0 {
			d = d[:i]
		}
		w("      # %s: %s", t.Name, d)
	}
	readOnly, idempotent, annotated, destructive := mcptarget.Annotated(t)
	if annotated {
		a := []string{"readOnlyHint: " + strconv.FormatBool(readOnly), "idempotentHint: " + strconv.FormatBool(idempotent)}
		if destructive != nil {
			a = append(a, "destructiveHint: "+strconv.FormatBool(*destructive))
		}
		if o := t.Annotations.OpenWorldHint; o != nil {
			a = append(a, "openWorldHint: "+strconv.FormatBool(*o))
		}
		w("      # annotations: %s", strings.Join(a, ", "))
	} else {
		w("      # annotations: none (so it counts as mutating)")
	}
	w("      - name: %s", t.Name)
	why := "no readOnlyHint: it may change things"
	if readOnly {
		why = "readOnlyHint: true"
	}
	w("        mutating: %v   # from the annotations (%s)", !readOnly, why)
	schema, err := mcptarget.ParseSchema(t.InputSchema)
	if err != nil {
		w("        # TODO: its input schema could not be read (%v): give inputs and arguments by hand", err)
		return
	}
	var skip []string
	if !readOnly {
		if f, ok := keys.MetaField(t.Description + " " + schemaText(schema)); ok {
			if mcpconfig.ValidArgName(f) {
				w("        key_meta: %s   # the tool's description says the key goes in the call's _meta", f)
			} else {
				w("        key_meta: %s   # TODO: the tool's description says the key goes in the call's _meta, as %q, a name key_meta cannot spell", keys.DefaultMetaField, f)
			}
		} else if k := schema.KeyArgument(); k != "" {
			w("        key_argument: %s   # from the input schema", k)
			skip = append(skip, k)
		} else {
			w("        key_argument: \"\"   # the schema has no key argument; if the key goes in _meta, write key_meta: idempotency-key instead")
		}
		if d := schema.DryRunArgument(); d != "" {
			w("        dry_run_argument: %s   # from the input schema", d)
			skip = append(skip, d)
		} else {
			w("        dry_run_argument: \"\"   # the schema has no dry-run flag")
		}
	}
	marker := schema.MarkerProperty(skip...)
	switch {
	case marker != "":
		w("        marker: %s   # {{marker}} goes here: the server must pass it on to its downstream calls", marker)
		skip = append(skip, marker)
	case !readOnly:
		w("        marker: \"\"   # TODO: the schema has no free-text string argument: name the argument the server passes downstream, or put \"{{marker}}\" in arguments:")
	}
	var lines []string
	for _, p := range schema.Leaves() {
		if contains(skip, p.Path) || mcptarget.KeyLike(leafName(p.Path)) {
			continue // one key channel: no generated value in a key-like argument
		}
		in, ok := mcptarget.InputFor(p)
		if !ok {
			continue
		}
		lines = append(lines, fmt.Sprintf("          %s: %s", p.Path, inputYAML(in)))
	}
	if len(lines) > 0 {
		sort.Strings(lines)
		w("        inputs:   # generated with the run's seed, from the schema")
		for _, l := range lines {
			w("%s", l)
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// inputYAML writes an input generator as the configuration spells it.
func inputYAML(in record.Input) string {
	switch in.Kind {
	case "int":
		return fmt.Sprintf("{int: [%d, %d]}", in.Min, in.Max)
	case "choice":
		return "{choice: " + flowList(in.Choices) + "}"
	}
	return fmt.Sprintf("{string: {prefix: %q, length: %d}}", in.Prefix, in.Length)
}

func flowList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// schemaText is the descriptions of a schema and its properties, at any
// depth, where a tool may say how it takes its key.
func schemaText(s *mcptarget.Schema) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(s.Description)
	for _, p := range s.Properties {
		b.WriteString(" " + schemaText(p))
	}
	b.WriteString(" " + schemaText(s.Items))
	return b.String()
}

// leafName is the last name of a JSON path: items.0.note → note.
func leafName(path string) string {
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			return parts[i]
		}
	}
	return path
}
