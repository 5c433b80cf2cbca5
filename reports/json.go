package reports

import (
	"encoding/json"
	"io"

	"github.com/idemcheck/idemcheck/harness"
)

// ReportSchema names the version of the JSON report.
const ReportSchema = "idemcheck.report/v1"

// Report is the JSON report: what CI gates on.
type Report struct {
	Schema  string         `json:"schema"`
	Seed    uint64         `json:"seed"`
	Targets []TargetReport `json:"targets"`
}

// TargetReport is one target's part of the report.
type TargetReport struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Score is the rubric level 0–3; -1 when the target could not be tested.
	Score       int                   `json:"score"`
	ScoreReason string                `json:"score_reason"`
	Next        *harness.Gap          `json:"next,omitempty"`
	Error       string                `json:"error,omitempty"`
	Checks      []harness.CheckResult `json:"checks"`
	Findings    []harness.Finding     `json:"findings"`
	Summary     Summary               `json:"summary"`
}

// Summary holds a target's figures.
type Summary struct {
	Intents    int   `json:"intents"`
	Attempts   int   `json:"attempts"`
	Effects    int   `json:"effects"`
	DurationMS int64 `json:"duration_ms"`
}

// Build makes the report of res.
func Build(res *harness.Result) Report {
	rep := Report{Schema: ReportSchema, Seed: res.Seed, Targets: []TargetReport{}}
	for _, t := range res.Targets {
		tr := TargetReport{
			Name: t.Name, Kind: t.Kind, Score: t.Score.Level, ScoreReason: t.Score.Reason, Next: t.Score.Next,
			Error: t.Error, Checks: t.Checks, Findings: t.Findings,
			Summary: Summary{DurationMS: t.Duration.Milliseconds()},
		}
		if t.Error != "" {
			tr.Score = -1
			tr.ScoreReason = "not scored: the harness could not test this target"
		}
		if tr.Checks == nil {
			tr.Checks = []harness.CheckResult{}
		}
		if tr.Findings == nil {
			tr.Findings = []harness.Finding{}
		}
		if t.Record != nil {
			tr.Summary.Intents = len(t.Record.Intents)
			for _, in := range t.Record.Intents {
				tr.Summary.Attempts += len(in.Attempts)
			}
			tr.Summary.Effects = len(t.Record.Ledger)
		}
		rep.Targets = append(rep.Targets, tr)
	}
	return rep
}

// JSON writes the report of res, indented.
func JSON(w io.Writer, res *harness.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Build(res))
}

// ResultJSON writes res itself (history and ledger included): the raw
// record that idemcheck report can re-score.
func ResultJSON(w io.Writer, res *harness.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
