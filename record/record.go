package record

import "github.com/idemcheck/idemcheck/fakes"

// Record is the single record of one target's run: what was attempted,
// what the target answered, and what the fakes saw.
type Record struct {
	Target  TargetInfo     `json:"target"`
	Seed    uint64         `json:"seed"`
	Intents []Intent       `json:"intents"`
	Ledger  []fakes.Effect `json:"ledger"`
	// Checks are the ids of the checks that were enabled.
	Checks []string `json:"checks"`
	// Faults are the names of the faults that were tried.
	Faults []string `json:"faults"`
	// Dependencies are the names of the databases and caches the target
	// declared (its dependencies:, behind the proxy), sorted.
	Dependencies []string `json:"dependencies,omitempty"`
	// Unsupported lists faults the adapter could not inject.
	Unsupported []string `json:"unsupported,omitempty"`
	// UnsupportedWhy says, for each fault of Unsupported, why.
	UnsupportedWhy map[string]string `json:"unsupported_why,omitempty"`
	// Unexamined lists what the harness knew, as it ran, it could not
	// examine: a check's part under a fault the adapter cannot inject, a
	// fault armed that never fired. checks.Score adds the checks that had
	// nothing to judge.
	Unexamined []Unexamined `json:"unexamined,omitempty"`
	// Shard is "i/n" when this record is one shard of a run, "" when whole.
	Shard string `json:"shard,omitempty"`
	// Observers says in a line each what every effect observer saw
	// ("orders-db (sql) found no row for any of the 21 markers").
	Observers []string `json:"observers,omitempty"`
	// Attribution is AttributionDelta when an observer tied effects to
	// intents by delta (a count read before and after each intent), ""
	// when every effect was found by its intent's marker.
	Attribution string `json:"attribution,omitempty"`
	// NotRun lists what the run left out so that it could attribute by
	// delta (intents sent at once), each with why.
	NotRun map[string]string `json:"not_run,omitempty"`
	// EffectPoints are, per operation whose clean run made more than one
	// downstream call, those calls in order: the points at which each
	// downstream fault and crash point is armed in turn.
	EffectPoints []OperationPoints `json:"effect_points,omitempty"`
}

// AttributionDelta is Record.Attribution for a run whose effects were
// attributed by delta: the intents of the target ran one at a time, and
// the change an observer saw after each attempt was the intent's.
const AttributionDelta = "delta"

// EffectsOf returns the effects attributed to the intent's marker.
func (r *Record) EffectsOf(in *Intent) []fakes.Effect {
	var out []fakes.Effect
	for _, e := range r.Ledger {
		if e.HasMarker(in.Marker) {
			out = append(out, e)
		}
	}
	return out
}

// Intent returns the intent with id.
func (r *Record) Intent(id int) *Intent {
	for i := range r.Intents {
		if r.Intents[i].ID == id {
			return &r.Intents[i]
		}
	}
	return nil
}
