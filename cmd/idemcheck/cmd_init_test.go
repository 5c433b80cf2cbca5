package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/reports"
)

// buildOrdertool builds the reference CLI tool into a temporary directory
// and returns its path.
func buildOrdertool(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the Go toolchain is needed to build examples/cli/ordertool: go is not on PATH")
	}
	exe := filepath.Join(t.TempDir(), "ordertool")
	out, err := exec.Command(goTool, "build", "-o", exe, "github.com/idemcheck/idemcheck/examples/cli/ordertool").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return exe
}

func TestInitOnTheReferenceTool(t *testing.T) {
	exe := buildOrdertool(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, out, errs := runCLI(t, ctx, "init", "--", exe, "--store", "correct")
	require.Equal(t, exitOK, code, errs)

	// The starter is valid YAML whose only problems are the TODOs, each
	// reported at its line.
	_, err := config.Parse("starter.yaml", []byte(out))
	require.Error(t, err)
	var ce config.Errors
	require.ErrorAs(t, err, &ce)
	lines := strings.Split(out, "\n")
	var ops []string
	for _, e := range ce {
		assert.Contains(t, e.Msg, "say whether the command changes state")
		require.Greater(t, e.Line, 0)
		assert.Contains(t, lines[e.Line-1], "mutating: null   # TODO: true or false", "reported where the TODO is")
		require.Contains(t, lines[e.Line-2], "- name: ", "the operation is named just above")
		ops = append(ops, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[e.Line-2]), "- name:")))
	}
	assert.Equal(t, []string{"create-order", "send-email", "get-order"}, ops, "every subcommand of the help, and not help itself")
	assert.Contains(t, out, fmt.Sprintf("command: [%q, \"--store\", \"correct\"]", exe))
	assert.Contains(t, out, `PAYMENTS_URL: "{{fakes.payments.url}}"`, "a guess from the help's $PAYMENTS_URL")
	assert.Contains(t, out, `STATE_DIR: "{{state_dir}}"`)
	assert.Contains(t, out, `EMAIL_URL: "{{fakes.email.url}}"`)
	assert.Contains(t, out, "key_flag: --idempotency-key")
	assert.Contains(t, out, "dry_run_flag: --dry-run")

	// Once the TODOs are done, it runs.
	done := strings.NewReplacer(
		"mutating: null   # TODO: true or false", "mutating: MUT",
		`args: ["create-order"]`, "args: [create-order, --customer, cus_1, --amount, \"{{input.n}}\", --memo, \"order {{marker}}\"]\n        inputs: {n: {int: [1, 99]}}\n        #",
		`args: ["send-email"]`, `args: [send-email, --to, a@example.test, --subject, Hi, --memo, "mail {{marker}}"]`,
		`args: ["get-order"]`, `args: [get-order, --id, "{{marker}}"]`,
	).Replace(out)
	done = strings.Replace(done, "mutating: MUT", "mutating: true", 2)
	done = strings.Replace(done, "mutating: MUT", "mutating: false", 1)
	done = strings.ReplaceAll(done, "   # TODO: add its flags", "   # add its flags")
	f, err := config.Parse("done.yaml", []byte(done))
	require.NoError(t, err, done)
	assert.Equal(t, "cli", f.Targets[0].Base().Kind)
	assert.Equal(t, "ordertool", f.Targets[0].Base().Name)
}

func TestInitWritesAFileButNeverOverwrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	code, _, errs := runCLI(t, ctx, "init", "-o", path, "--name", "lister", "--", "sh", "-c", "printf 'Commands:\n  list   list things\n  add    add a thing\n'")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "wrote "+path+" with 2 operations")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "- name: list\n")
	assert.Contains(t, string(b), "- name: add\n")
	assert.Contains(t, string(b), "  - name: lister\n")
	assert.Contains(t, string(b), `dry_run_flag: ""`, "no dry-run flag in that help")

	code, _, errs = runCLI(t, ctx, "init", "-o", path, "--", "sh", "-c", "echo")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "already exists; idemcheck init does not overwrite a file")
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, b, again, "the file is untouched")
}

func TestInitBadUsage(t *testing.T) {
	ctx := context.Background()
	code, _, errs := runCLI(t, ctx, "init")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "init: no command")
	code, _, errs = runCLI(t, ctx, "init", "--", "no-such-tool-xyz")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `cannot run "no-such-tool-xyz"`)
}

func TestInitToolWithoutSubcommands(t *testing.T) {
	code, out, errs := runCLI(t, context.Background(), "init", "--", "sh", "-c", "echo usage: tool FILE")
	require.Equal(t, exitOK, code)
	assert.Contains(t, errs, "found no subcommands")
	assert.Contains(t, out, "- name: TODO\n")
	requireNoTargetsLeft(t)
}

// TestRunCLITargets runs the reference CLI tool from a configuration file,
// generated trials included: the correct store scores 3 with no finding,
// the jsonl store 0 with the flaws of a JSONL store checked, then marked;
// every invocation is gone afterwards. (send-email, against the email fake,
// is covered by examples.TestReferenceCLITargets.)
func TestRunCLITargets(t *testing.T) {
	exe := buildOrdertool(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	var b strings.Builder
	b.WriteString("version: 1\nfakes: {payments: {}, email: {}}\ntargets:\n")
	for _, store := range []string{"correct", "jsonl"} {
		fmt.Fprintf(&b, `  - name: %s
    kind: cli
    command: [%q, --store, %s]
    env: {PAYMENTS_URL: "{{fakes.payments.url}}", EMAIL_URL: "{{fakes.email.url}}", STATE_DIR: "{{state_dir}}"}
    operations:
      - name: create-order
        mutating: true
        args: [create-order, --customer, "{{input.customer}}", --amount, "{{input.amount}}", --memo, "order {{marker}}"]
        inputs: {customer: {string: {prefix: cus_}}, amount: {int: [100, 999]}}
      - name: get-order
        mutating: false
        args: [get-order, --id, "{{marker}}"]
`, store, exe, store)
	}
	path := filepath.Join(t.TempDir(), "cli.yaml")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	code, out, errs := runCLI(t, ctx, "run", "-c", path, "--trials", "0", "--format", "json", "--seed", "3", "--quiet")
	assert.Equal(t, exitBelow, code, "jsonl has critical findings: %s", errs)
	var rep reports.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Targets, 2)
	byName := map[string]int{}
	for i, tr := range rep.Targets {
		byName[tr.Name] = i
		assert.Equal(t, "cli", tr.Kind)
	}
	correct, jsonl := rep.Targets[byName["correct"]], rep.Targets[byName["jsonl"]]
	assert.Equal(t, 3, correct.Score)
	assert.Empty(t, correct.Findings)
	assert.Equal(t, 0, jsonl.Score)
	checks := map[string]bool{}
	for _, f := range jsonl.Findings {
		checks[f.Check] = true
	}
	for _, c := range []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch", "key.required"} {
		assert.True(t, checks[c], "jsonl's flaw is caught by %s: %s", c, out)
	}
	requireNoTargetsLeft(t)
}
