package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/scenarios"
)

// TestEveryReportCarriesTheCounterexample re-renders a saved result whose
// target failed a generated trial (a retry after a restart) with every
// format, through idemcheck report: each file tells the minimal
// counterexample's steps, the restart included, and the text one fits 80
// columns.
func TestEveryReportCarriesTheCounterexample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "reports", "testdata", "result.json"))
	require.NoError(t, err)
	var res record.Result
	require.NoError(t, json.Unmarshal(b, &res))
	res.Targets = res.Targets[:3] // the fourth could not be tested: exit 3
	res.Targets[0].Scenario = &record.ScenarioResult{
		Trials: 25,
		Counterexample: &scenarios.Trial{Steps: []scenarios.Step{
			{Op: "create-order", Key: scenarios.Fresh},
			{Op: "create-order", Key: scenarios.Again, Of: 0, Restart: true},
		}},
		Findings: []record.Finding{{Check: "exactly-once", Severity: record.Critical, Operation: "create-order", Message: "create-order: lost", Trial: true}},
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in", "result.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
	f, err := os.Create(in)
	require.NoError(t, err)
	require.NoError(t, json.NewEncoder(f).Encode(&res))
	require.NoError(t, f.Close())

	out := filepath.Join(dir, "out")
	code, stdout, errs := runCLI(t, context.Background(), "report", "--format", "text,md,junit,html,json", "--out", out, "--quiet", in)
	require.Contains(t, []int{exitOK, exitBelow}, code, errs)
	for _, name := range []string{"report.txt", "report.md", "report.xml", "report.html"} {
		text := readFile(t, filepath.Join(out, name))
		flat := strings.Join(strings.Fields(text), " ")
		assert.Contains(t, flat, "1. create-order with a fresh key", name)
		assert.Contains(t, flat, "2. restart the target, then create-order again with the key and payload of step 1", name)
	}
	var rep struct {
		Targets []struct {
			Name  string `json:"name"`
			Trial *struct {
				Steps []string `json:"steps"`
			} `json:"trial"`
		} `json:"targets"`
	}
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "report.json"))), &rep))
	require.NotEmpty(t, rep.Targets)
	require.NotNil(t, rep.Targets[0].Trial, "report.json carries the trial")
	assert.Equal(t, []string{
		"create-order with a fresh key retrying until done",
		"restart the target, then create-order again with the key and payload of step 1 retrying until done",
	}, rep.Targets[0].Trial.Steps, "report.json: the steps, the restart included")
	assert.Equal(t, readFile(t, filepath.Join(out, "report.txt")), stdout, "the first format goes to stdout, uncoloured off a terminal")
	for i, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "      idemcheck ") {
			continue // a command on a line of its own is never wrapped, so that it can be copied whole
		}
		assert.LessOrEqual(t, utf8.RuneCountInString(line), reports.TextWidth, "line %d: %q", i+1, line)
	}
}
