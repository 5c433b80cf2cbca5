package config

// Limits bound the requests a run sends to an http target. A target with
// allow_remote: true gets DefaultRemoteRequests and
// DefaultRemotePerSecond unless it sets its own; a local one is unbounded
// unless it sets them.
//
//	allow_remote: true
//	limits: {requests: 600, per_second: 5}
type Limits struct {
	// Requests is the most requests a run sends the target: attempts,
	// burst copies and read-backs. A run that needs more stops, and the
	// target is reported untestable with the reason.
	Requests int `yaml:"requests,omitempty"`
	// PerSecond is the average rate of requests; a burst's copies still
	// go together.
	PerSecond float64 `yaml:"per_second,omitempty"`
}

// The limits of a remote target that sets none; they match
// targets/http.DefaultRemoteLimits.
const (
	DefaultRemoteRequests  = 1500
	DefaultRemotePerSecond = 10
)

func (v *validator) limits(p string, l *Limits) {
	if l.Requests < 0 {
		v.errorf(pathField(p, "requests"), "must not be negative, got %d", l.Requests)
	}
	if l.PerSecond < 0 {
		v.errorf(pathField(p, "per_second"), "must not be negative, got %g", l.PerSecond)
	}
}

func (t *Target) applyLimits() {
	if !t.Remote {
		return
	}
	if t.Limits == nil {
		t.Limits = &Limits{}
	}
	if t.Limits.Requests == 0 {
		t.Limits.Requests = DefaultRemoteRequests
	}
	if t.Limits.PerSecond == 0 {
		t.Limits.PerSecond = DefaultRemotePerSecond
	}
}
