package record

// StatusNotExamined is the verdict of a check that had nothing against it
// but could not examine all it was planned to: a fault armed for one of
// the intents it judges never acted (Attempt.NotFired), so what that
// intent was to show was not shown. It is not a pass: the rubric counts
// it as a check that did not run.
const StatusNotExamined Status = "not-examined"

// Unfired is one attempt whose fault was armed and never acted.
type Unfired struct {
	// Intent and Attempt locate it: the intent's id, the attempt's N.
	Intent  int `json:"intent"`
	Attempt int `json:"attempt"`
	// Probe and Operation are the intent's; Fault is the attempt's.
	Probe     string `json:"probe"`
	Operation string `json:"operation"`
	Fault     string `json:"fault"`
}

// Unfired lists the attempts of r whose fault was armed and never acted,
// in the order of the record.
func (r *Record) Unfired() []Unfired {
	var out []Unfired
	for i := range r.Intents {
		in := &r.Intents[i]
		for _, a := range in.Attempts {
			if a.NotFired && a.Fault != "" {
				out = append(out, Unfired{Intent: in.ID, Attempt: a.N, Probe: in.Probe, Operation: in.Operation, Fault: a.Fault})
			}
		}
	}
	return out
}

// Unfired reports whether a fault armed for the intent never acted: an
// attempt of it has NotFired set.
func (in *Intent) Unfired() bool {
	for _, a := range in.Attempts {
		if a.NotFired && a.Fault != "" {
			return true
		}
	}
	return false
}
