package record

import (
	"time"
)

// ResultSchema names the version of the Result encoding.
const ResultSchema = "idemcheck.result/v1"

// Status is a check's verdict on a target.
type Status string

// The check statuses.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// CheckResult is one check's verdict on one target.
type CheckResult struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	// Note says why a check was skipped, or sums up what it judged.
	Note string `json:"note,omitempty"`
}

// TopScore is the rubric's highest level: a score goes from 0 to
// TopScore, and a finding's severity forbids one of its levels 1 to
// TopScore.
const TopScore = 3

// ScoreResult is a target's rubric level and the reason for it.
type ScoreResult struct {
	Level int `json:"level"`
	// Reason says in one sentence why the target is at this level: the
	// condition of the next level that failed and the finding in its way,
	// if one is, with the other checks whose findings also stand there,
	// then what the run did not examine that could lower it.
	Reason string `json:"reason"`
	// Next says which condition of the next level failed, if any.
	Next *Gap `json:"next,omitempty"`
	// Partial is true when the run was restricted to some checks (Meta.Only,
	// idemcheck run --only): then no score is computed, Level is 0 and
	// means nothing, and Reason says which checks ran.
	Partial bool `json:"partial,omitempty"`
}

// Gap is the condition of the next level a target did not meet.
type Gap struct {
	Level     int    `json:"level"`
	Condition string `json:"condition"`
	Check     string `json:"check"`
	// Finding indexes TargetResult.Findings; -1 when a check did not run.
	Finding int    `json:"finding"`
	Message string `json:"message"`
}

// TargetResult is everything a run learned about one target.
type TargetResult struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Score    ScoreResult   `json:"score"`
	Checks   []CheckResult `json:"checks"`
	Findings []Finding     `json:"findings"`
	// NotExamined lists the checks, or their parts under a fault, that
	// the run did not examine, and why; the score's reason names those
	// that limit what it claims (Unexamined.Limits).
	NotExamined []Unexamined `json:"not_examined,omitempty"`
	// Coverage says, for each fault armed at the effect points of an
	// operation that makes several downstream calls, which points it
	// reached (see Record.Coverage).
	Coverage []FaultCoverage `json:"coverage,omitempty"`
	// Error is set when the harness could not test the target.
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Record   *Record       `json:"record,omitempty"`
	// Scenario is what generated trials showed, when any ran.
	Scenario *ScenarioResult `json:"scenario,omitempty"`
	// Gate is whether this target met the run's gate, and why (see
	// harness.ApplyGate); nil until a gate is applied.
	Gate *TargetGate `json:"gate,omitempty"`
	// Baseline is how this target compares with the same target in an
	// earlier result (see harness.Compare); nil without a baseline, or when the
	// baseline did not have the target.
	Baseline *TargetDiff `json:"baseline,omitempty"`
}

// Result is a whole run: the record of every target plus the verdicts.
// It is a stable, versioned encoding (Schema): idemcheck run writes it and
// idemcheck report re-scores and re-renders it.
type Result struct {
	Schema string `json:"schema"`
	Seed   uint64 `json:"seed"`
	// Nonce is the run's nonce (see Options.Nonce), mixed into every key
	// and marker; with Seed it reproduces them byte for byte.
	Nonce uint64 `json:"nonce,omitempty"`
	// Meta says how the run was made; the caller (the CLI) fills it in.
	Meta     Meta           `json:"meta"`
	Started  time.Time      `json:"started"`
	Duration time.Duration  `json:"duration_ns"`
	Targets  []TargetResult `json:"targets"`
	// Gate is the verdict the run was held to: the one its exit code
	// gives; nil until a gate is applied (see harness.ApplyGate).
	Gate *Gate `json:"gate,omitempty"`
	// Source is the file the result was read from (ReadResultFile), if any.
	Source string `json:"-"`
}

// Meta describes how a run was made, so that a report can say how to make
// it again.
type Meta struct {
	// Version is idemcheck's version.
	Version string `json:"version,omitempty"`
	// Config is the configuration file, as given; ConfigDigest its SHA-256.
	Config       string `json:"config,omitempty"`
	ConfigDigest string `json:"config_digest,omitempty"`
	// Command is the command that made the run, e.g. "run" or "demo".
	Command string `json:"command,omitempty"`
	// Shard is "i/n" when the run was one shard of several.
	Shard string `json:"shard,omitempty"`
	// Only lists the checks the run was restricted to (run --only); the
	// scores of such a run are partial (ScoreResult.Partial).
	Only []string `json:"only,omitempty"`
	// Targets lists the configuration's targets the run was restricted
	// to (run --target), when it was.
	Targets []string `json:"targets,omitempty"`
}

// Failed reports whether any target could not be tested.
func (r *Result) Failed() bool {
	for _, t := range r.Targets {
		if t.Error != "" {
			return true
		}
	}
	return false
}
