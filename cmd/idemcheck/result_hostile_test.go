package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/record"
	"github.com/stretchr/testify/require"
)

// seedResult loads the small real result.json kept for the fuzz tests.
func seedResult(t testing.TB) record.Result {
	t.Helper()
	b, err := os.ReadFile("testdata/result.seed.json")
	require.NoError(t, err)
	var res record.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.NotEmpty(t, res.Targets)
	require.NotNil(t, res.Targets[0].Record)
	require.NotEmpty(t, res.Targets[0].Findings)
	return res
}

// mutateNumbers sets the numbers of a result that index something to
// values that may be out of range.
func mutateNumbers(res *record.Result, attemptN, finding, level, intentID int, dropAttempts bool) {
	tr := &res.Targets[0]
	tr.Score.Level = level
	if tr.Score.Next == nil {
		tr.Score.Next = &record.Gap{}
	}
	tr.Score.Next.Finding = finding
	for _, ins := range [][]record.Intent{tr.Record.Intents, tr.Findings[0].Evidence.Intents} {
		for i := range ins {
			ins[i].ID = intentID
			ins[i].Related = intentID
			if dropAttempts {
				ins[i].Attempts = nil
			}
			for j := range ins[i].Attempts {
				ins[i].Attempts[j].N = attemptN
			}
		}
	}
}

// reportOn writes res and runs `idemcheck report` on it; it returns the
// exit code, and must not panic.
func reportOn(t *testing.T, res *record.Result) int {
	t.Helper()
	b, err := json.Marshal(res)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "result.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, _, _ := runCLI(t, t.Context(), "report", "--format", "text,json,junit,md,html", "--out", t.TempDir(), path)
	return code
}

// TestReportOnHostileNumbers: numbers that index something, out of range,
// are refused as bad input (exit 2), never a panic.
func TestReportOnHostileNumbers(t *testing.T) {
	rows := []struct {
		why                                string
		attemptN, finding, level, intentID int
		dropAttempts                       bool
	}{
		{"attempt numbers past the attempts", 7, -1, 1, 1, false},
		{"attempt number zero", 0, -1, 1, 1, false},
		{"negative attempt number", -3, -1, 1, 1, false},
		{"a gap naming a finding that does not exist", 1, 99, 1, 1, false},
		{"a negative finding index other than -1", 1, -7, 1, 1, false},
		{"a score past the top", 1, -1, 99, 1, false},
		{"a negative score", 1, -1, -5, 1, false},
		{"a negative intent id", 1, -1, 1, -4, false},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			res := seedResult(t)
			mutateNumbers(&res, r.attemptN, r.finding, r.level, r.intentID, r.dropAttempts)
			require.Equal(t, exitUsage, reportOn(t, &res))
		})
	}
}

// FuzzResultNumbers fuzzes the numbers of a real result that index
// something: `report` must end with an exit code, never a panic.
func FuzzResultNumbers(f *testing.F) {
	f.Add(1, -1, 1, 1, false)
	f.Add(7, 99, 4, -1, true)
	f.Fuzz(func(t *testing.T, attemptN, finding, level, intentID int, drop bool) {
		res := seedResult(t)
		mutateNumbers(&res, attemptN, finding, level, intentID, drop)
		code := reportOn(t, &res)
		if code != exitOK && code != exitBelow && code != exitUsage {
			t.Fatalf("report exited %d", code)
		}
	})
}
