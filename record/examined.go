package record

// Unfired is one attempt whose fault was armed and never acted.
type Unfired struct {
	// Intent and Attempt locate it: the intent's id, the attempt's N.
	Intent  int `json:"intent"`
	Attempt int `json:"attempt"`
	// Probe and Operation are the intent's; Fault and FaultClass are the
	// attempt's.
	Probe      string `json:"probe"`
	Operation  string `json:"operation"`
	Fault      string `json:"fault"`
	FaultClass string `json:"fault_class,omitempty"`
	// Point is the effect point the fault was armed at, if any.
	Point *EffectPoint `json:"point,omitempty"`
}

// Unfired lists the attempts of r whose fault was armed and never acted,
// in the order of the record.
func (r *Record) Unfired() []Unfired {
	var out []Unfired
	for i := range r.Intents {
		in := &r.Intents[i]
		for _, a := range in.Attempts {
			if a.NotFired && a.Fault != "" {
				out = append(out, Unfired{Intent: in.ID, Attempt: a.N, Probe: in.Probe, Operation: in.Operation, Fault: a.Fault, FaultClass: a.FaultClass, Point: a.Point})
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
