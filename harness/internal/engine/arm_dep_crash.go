package engine

import (
	"context"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/faults"
)

// depCrashArm arms a crash at a dependency's commit (faults.BeforeCommit,
// faults.AfterCommit): a hook in every dependency's proxy for the call's
// marker kills the target just before the commit carrying the intent's
// write is forwarded (which is then dropped: the database rolls back), or
// once the database has answered it, before the answer reaches the
// target (which is then reset). Targets
// counted only by observers take it: no fake is involved.
type depCrashArm struct{ p faults.CrashPoint }

func depCrashArmer(f faults.Fault) armer {
	if c, ok := f.(faults.CrashFault); ok && faults.OnCommit(c.CrashPoint()) {
		return depCrashArm{c.CrashPoint()}
	}
	return nil
}

// needsFake: the proxy reports the commit.
func (depCrashArm) needsFake() bool { return false }

func (c depCrashArm) arm(a *armed) func() {
	// After the commit: the database has committed, and the target is
	// killed before its answer reaches it, so that nothing the target
	// does once told (the next statement, on any of its connections)
	// can race the kill.
	rule := deps.Rule{Intent: a.call.Marker, Action: deps.ResetAfterCommit}
	if c.p == faults.BeforeCommit {
		rule = deps.Rule{Intent: a.call.Marker, Action: deps.BeforeCommit, Drop: true}
	}
	rule.Hook = func(context.Context, deps.Event) {
		a.forwarded.Store(true)
		a.kill()
	}
	proxies := a.depProxies("")
	var handles []*deps.Armed
	for _, p := range proxies {
		if x, err := p.Control().Arm(rule); err == nil {
			handles = append(handles, x)
		}
	}
	a.depFired("", handles)
	return func() {
		for _, p := range proxies {
			p.Control().Disarm(a.call.Marker)
		}
	}
}
