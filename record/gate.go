package record

// Gate is the verdict a run was held to, kept in the result so that every
// report says what the exit code says.
type Gate struct {
	// MinScore is the score every target had to reach (--min-score).
	MinScore int `json:"min_score"`
	// Baseline is the earlier result the run was compared with (--baseline),
	// if any: then only what is new fails the gate.
	Baseline string `json:"baseline,omitempty"`
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
