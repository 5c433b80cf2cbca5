package record

// Gate is the verdict a run was held to, kept in the result so that every
// report says what the exit code says.
type Gate struct {
	// MinScore is the score every target had to reach (--min-score).
	MinScore int `json:"min_score"`
	// Baseline is the earlier result the run was compared with (--baseline),
	// if any: then only what is new fails the gate.
	Baseline string `json:"baseline,omitempty"`
	// NewTargets are the run's targets the baseline did not have (renamed
	// or added since): judged without a baseline, their findings have no
	// history.
	NewTargets []string `json:"new_targets,omitempty"`
	// GoneTargets are the baseline's targets this run does not have
	// (renamed or removed).
	GoneTargets []string `json:"gone_targets,omitempty"`
	// Replay says that the verdict is that of saved trials run again
	// (idemcheck replay): a target fails while one of them still fails,
	// and MinScore does not apply.
	Replay bool `json:"replay,omitempty"`
	// Met says whether every target met the gate.
	Met bool `json:"met"`
	// Reason says why, in one sentence.
	Reason string `json:"reason"`
}

// TargetGate is one target's part of the gate.
type TargetGate struct {
	Met    bool   `json:"met"`
	Reason string `json:"reason"`
}
