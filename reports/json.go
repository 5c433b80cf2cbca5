package reports

import (
	"encoding/json"
	"io"
	"time"

	"github.com/idemcheck/idemcheck/record"
)

// ReportSchema names the version of the JSON report. Within a version,
// fields are only ever added; schema/report.v1.json documents every one.
const ReportSchema = "idemcheck.report/v1"

// Report is the JSON report: what CI gates on.
type Report struct {
	Schema string `json:"schema"`
	Seed   uint64 `json:"seed"`
	// Meta says how the run was made: idemcheck's version, the
	// configuration file and its SHA-256, the command, the shard.
	Meta       record.Meta `json:"meta"`
	Started    time.Time   `json:"started"`
	DurationMS int64       `json:"duration_ms"`
	// Replay is the command that repeats the whole run with its seed, ""
	// when the run was not made by the idemcheck command.
	Replay  string     `json:"replay"`
	Summary RunSummary `json:"summary"`
	// Gate is the verdict the run was held to (--min-score, --baseline):
	// the one its exit code gives.
	Gate    *record.Gate   `json:"gate,omitempty"`
	Targets []TargetReport `json:"targets"`
}

// TargetReport is one target's part of the report.
type TargetReport struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Score is the rubric level 0–3; -1 when the target could not be
	// tested, or when its score is partial (ScorePartial).
	Score int `json:"score"`
	// ScorePartial is true when the run was restricted to some checks
	// (--only): the score is not computed, ScoreReason says which ran.
	ScorePartial bool        `json:"score_partial,omitempty"`
	ScoreReason  string      `json:"score_reason"`
	Next         *record.Gap `json:"next,omitempty"`
	// Gate says whether the target met the run's gate, and why.
	Gate *record.TargetGate `json:"gate,omitempty"`
	// Baseline is what changed since the baseline (--baseline), if any.
	Baseline *record.TargetDiff   `json:"baseline,omitempty"`
	Error    string               `json:"error,omitempty"`
	Checks   []record.CheckResult `json:"checks"`
	Findings []Finding            `json:"findings"`
	// Faults are the faults the run tried on the target; Unsupported those
	// its adapter could not inject.
	Faults      []string `json:"faults"`
	Unsupported []string `json:"unsupported"`
	// UnsupportedWhy says, for each fault of Unsupported, why it could
	// not be injected.
	UnsupportedWhy map[string]string `json:"unsupported_why,omitempty"`
	// NotExamined lists the checks, or their parts under a fault, that the
	// run did not examine, and why (see record.Unexamined).
	NotExamined []record.Unexamined `json:"not_examined"`
	// Coverage says, per fault armed at the effect points of an
	// operation with several downstream calls, which it reached (see
	// record.FaultCoverage).
	Coverage []record.FaultCoverage `json:"coverage,omitempty"`
	// Observers, Attribution and NotRun say what the effect observers
	// saw, whether they attributed by delta, and what the run left out
	// for that (see record.Record).
	Observers   []string          `json:"observers,omitempty"`
	Attribution string            `json:"attribution,omitempty"`
	NotRun      map[string]string `json:"not_run,omitempty"`
	// Trial is the failing generated trial, if one failed.
	Trial   *Trial  `json:"trial,omitempty"`
	Summary Summary `json:"summary"`
}

// Trial is a target's failing generated trial: its minimal counterexample
// as readable steps, the checks it made fail, and how often it failed
// again when replayed.
type Trial struct {
	Steps      []string `json:"steps"`
	Checks     []string `json:"checks"`
	Replays    int      `json:"replays"`
	Reproduced int      `json:"reproduced"`
	// Flaky: none of the replays failed; its findings do not count.
	Flaky bool `json:"flaky"`
}

// Finding is a harness finding with the command that replays it.
type Finding struct {
	record.Finding
	// Replay re-runs the finding's check, and the checks whose probes made
	// its evidence, with the run's seed (ReplayCommand); "" when the run
	// was not made by the idemcheck command.
	Replay string `json:"replay"`
}

// Summary holds a target's figures.
type Summary struct {
	Intents    int   `json:"intents"`
	Attempts   int   `json:"attempts"`
	Effects    int   `json:"effects"`
	DurationMS int64 `json:"duration_ms"`
	Findings   int   `json:"findings"`
	// Trials counts the generated trials run after the probes.
	Trials int `json:"trials"`
}

// RunSummary holds the whole run's figures.
type RunSummary struct {
	Targets int `json:"targets"`
	// Untested counts the targets the harness could not test.
	Untested int `json:"untested"`
	Intents  int `json:"intents"`
	Trials   int `json:"trials"`
	Attempts int `json:"attempts"`
	Effects  int `json:"effects"`
	Findings int `json:"findings"`
	// Critical, Major and Minor count the findings by severity.
	Critical   int   `json:"critical"`
	Major      int   `json:"major"`
	Minor      int   `json:"minor"`
	DurationMS int64 `json:"duration_ms"`
}

// Build makes the report of res.
func Build(res *record.Result) Report {
	rep := Report{
		Schema: ReportSchema, Seed: res.Seed, Meta: res.Meta,
		Started: res.Started, DurationMS: res.Duration.Milliseconds(),
		Replay:  RunCommand(res),
		Gate:    res.Gate,
		Targets: []TargetReport{},
	}
	for _, t := range res.Targets {
		tr := TargetReport{
			Name: t.Name, Kind: t.Kind, Score: t.Score.Level, ScoreReason: t.Score.Reason, Next: t.Score.Next,
			ScorePartial: t.Score.Partial, Gate: t.Gate, Baseline: t.Baseline,
			Error: t.Error, Checks: t.Checks, Findings: []Finding{},
			Faults: []string{}, Unsupported: []string{}, NotExamined: append([]record.Unexamined{}, t.NotExamined...),
			Coverage: t.Coverage,
			Summary:  Summary{DurationMS: t.Duration.Milliseconds(), Findings: len(t.Findings)},
		}
		if t.Score.Partial {
			tr.Score = -1
		}
		if t.Error != "" {
			tr.Score = -1
			tr.ScoreReason = "not scored: the harness could not test this target"
			rep.Summary.Untested++
		}
		if tr.Checks == nil {
			tr.Checks = []record.CheckResult{}
		}
		for _, f := range t.Findings {
			tr.Findings = append(tr.Findings, Finding{Finding: f, Replay: findingReplay(res, f)})
			switch f.Severity {
			case record.Critical:
				rep.Summary.Critical++
			case record.Major:
				rep.Summary.Major++
			case record.Minor:
				rep.Summary.Minor++
			}
		}
		if t.Record != nil {
			tr.Summary.Intents = len(t.Record.Intents)
			for _, in := range t.Record.Intents {
				tr.Summary.Attempts += len(in.Attempts)
			}
			tr.Summary.Effects = len(t.Record.Ledger)
			tr.Faults = append(tr.Faults, t.Record.Faults...)
			tr.Unsupported = append(tr.Unsupported, t.Record.Unsupported...)
			tr.UnsupportedWhy = t.Record.UnsupportedWhy
			tr.Observers, tr.Attribution, tr.NotRun = t.Record.Observers, t.Record.Attribution, t.Record.NotRun
		}
		if t.Scenario != nil {
			tr.Summary.Trials = t.Scenario.Trials
			if steps := TrialSteps(t); len(steps) > 0 {
				sc := t.Scenario
				tr.Trial = &Trial{Steps: steps, Checks: trialChecks(sc), Replays: sc.Replays, Reproduced: sc.Reproduced, Flaky: sc.Flaky}
				if tr.Trial.Checks == nil {
					tr.Trial.Checks = []string{}
				}
			}
		}
		rep.Summary.Targets++
		rep.Summary.Intents += tr.Summary.Intents
		rep.Summary.Trials += tr.Summary.Trials
		rep.Summary.Attempts += tr.Summary.Attempts
		rep.Summary.Effects += tr.Summary.Effects
		rep.Summary.Findings += tr.Summary.Findings
		rep.Targets = append(rep.Targets, tr)
	}
	rep.Summary.DurationMS = rep.DurationMS
	return rep
}

// JSON writes the report of res, indented.
func JSON(w io.Writer, res *record.Result, o Options) error {
	res = withGate(cleaned(res), o) // nothing a target printed reaches the report raw
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Build(res))
}

// ResultJSON writes res itself (history and ledger included) as
// Result.WriteJSON does, cleaned first: nothing a target printed is stored
// raw, and no secret it printed is stored at all.
func ResultJSON(w io.Writer, res *record.Result) error {
	return cleaned(res).WriteJSON(w) // nothing a target printed is stored raw
}
