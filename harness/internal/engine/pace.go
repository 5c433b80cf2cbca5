package engine

import (
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/record"
)

// A waiting fault (a client timeout, a hang, a delay) waits, in generated
// trials, at most trialPaceFactor times the target's usual reply time, and
// at least trialPaceFloor: the probes keep the configured waits, the many
// trials keep the pace of the target. What such a fault shows does not
// depend on the wait: a client that gives up before the target is done
// retries while the first call is in flight, which trials want too.
const (
	trialPaceFactor = 4
	trialPaceFloor  = time.Millisecond
)

// trialPace is the longest wait of a waiting fault in the trials after
// the probes of rec: trialPaceFactor times the median of their unfaulted
// attempts' times (those sent alone: not a burst's copies, not fillers),
// at least trialPaceFloor; 0 (the configured waits) when the probes timed
// no such attempt.
func trialPace(rec *record.Record) time.Duration {
	if rec == nil {
		return 0
	}
	var ds []time.Duration
	for _, in := range rec.Intents {
		if in.Role == record.RoleFiller {
			continue // sent eight at a time: slower each than one alone
		}
		for _, a := range in.Attempts {
			if a.Fault == "" && !a.Burst && !a.End.IsZero() {
				ds = append(ds, a.End.Sub(a.Start))
			}
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return max(trialPaceFactor*ds[len(ds)/2], trialPaceFloor)
}

// pacedFaults returns fs with every waiting fault made to wait at most
// pace (fs itself when pace is 0).
func pacedFaults(fs []faults.Fault, pace time.Duration) []faults.Fault {
	if pace <= 0 {
		return fs
	}
	out := make([]faults.Fault, len(fs))
	for i, f := range fs {
		if w, ok := f.(faults.Waiting); ok {
			f = w.Within(pace)
		}
		out[i] = f
	}
	return out
}

// usualTime is the longest time an unfaulted attempt at in's operation,
// sent alone (not a burst's copy, not a filler), took so far in the run
// (for a step of a group run at once: until the group started), in's own
// included; 0 when none was timed.
func (r *runner) usualTime(in *record.Intent) time.Duration {
	var longest time.Duration
	timed := func(x *record.Intent) {
		if x.Operation != in.Operation || x.Role == record.RoleFiller {
			return
		}
		for _, a := range x.Attempts {
			if a.Fault == "" && !a.Burst && !a.End.IsZero() {
				longest = max(longest, a.End.Sub(a.Start))
			}
		}
	}
	switch {
	case r.usualBefore != nil:
		longest = *r.usualBefore
	case r.rec != nil:
		for i := range r.rec.Intents {
			timed(&r.rec.Intents[i])
		}
	}
	timed(in)
	return longest
}
