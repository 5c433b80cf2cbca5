package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/faults"
)

// depSettleGrace bounds, past a stall's delay, the wait for the stalled
// statements' commit to be answered before effects are counted again.
const depSettleGrace = 5 * time.Second

// depArm arms a fault injected by the proxy in front of a declared
// dependency (faults.DependencyFault): its rule for the call's marker, in
// the proxy of the dependency it names (of every one when it names
// none); for a Refuser, a restart of the database instead.
type depArm struct{ f faults.DependencyFault }

func depArmer(f faults.Fault) armer {
	if d, ok := f.(faults.DependencyFault); ok {
		return depArm{d}
	}
	return nil
}

// needsFake: the proxy acts, not a fake.
func (depArm) needsFake() bool { return false }

func (d depArm) arm(a *armed) func() {
	proxies := a.depProxies(d.f.Dependency())
	if r, ok := d.f.(faults.Refuser); ok {
		return armRefusal(a, proxies, r.RefuseWindow())
	}
	var leave context.CancelFunc
	if l, ok := d.f.(faults.Leaver); ok && l.LeavesWhenFired() {
		a.ctx, leave = context.WithCancel(a.ctx)
	}
	type armedIn struct {
		p     deps.Proxy
		armed *deps.Armed
	}
	var in []armedIn
	for _, p := range proxies {
		rule := d.f.DepRule(a.call.Marker)
		if leave != nil {
			rule.OnFire = func(deps.Event) {
				// The first held statement: the target had the request,
				// and the client gives up on it now.
				a.forwarded.Store(true)
				leave()
			}
		}
		armed, err := p.Control().Arm(rule)
		if err != nil {
			continue // a code this protocol does not have: nothing to arm here
		}
		in = append(in, armedIn{p, armed})
	}
	handles := make([]*deps.Armed, len(in))
	for i, x := range in {
		handles[i] = x.armed
	}
	a.depFired(d.f.Dependency(), handles)
	return func() {
		for _, x := range in {
			x.p.Control().Disarm(a.call.Marker)
			if x.armed.Count() > 0 {
				a.forwarded.Store(true)
			}
		}
		if leave != nil {
			leave()
		}
		stall := d.f.DepRule(a.call.Marker)
		if stall.Action != deps.Stall {
			return
		}
		// What the stalled statements do lands after this attempt:
		// before the effects are counted after a later attempt of the
		// intent, wait (bounded) for their commit to be answered.
		for _, x := range in {
			if x.armed.Count() == 0 {
				continue
			}
			ev := x.p.Control().Events()
			marker := a.call.Marker
			a.settleLater(func(ctx context.Context) {
				ctx, cancel := context.WithTimeout(ctx, stall.Delay+depSettleGrace)
				defer cancel()
				fired, err := ev.Wait(ctx, func(e deps.Event) bool {
					return e.Kind == deps.EventFault && e.Intent == marker && e.Action == deps.Stall
				})
				if err != nil {
					return
				}
				_, _ = ev.Wait(ctx, func(e deps.Event) bool {
					return e.Seq > fired.Seq && e.Conn == fired.Conn &&
						(e.Kind == deps.EventCommitReplied || e.Kind == deps.EventProblem)
				})
			})
		}
	}
}

// depFired sets a.fired to say whether one of the rules as, armed in the
// proxy of the dependency called name (of every one when name is empty),
// acted, and a.unfiredWhy to say why none may have: the proxy never saw
// the intent's marker, or the target sent nothing while the attempt ran
// alone. With no rule armed it cannot tell, and sets neither.
func (a *armed) depFired(name string, as []*deps.Armed) {
	if len(as) == 0 {
		return
	}
	a.fired = func() bool {
		for _, x := range as {
			if x.Count() > 0 {
				return true
			}
		}
		return false
	}
	a.unfiredWhy = unfiredInFlight
	for n := range a.deps {
		if _, inFlight := a.depsInFlight[n]; (name == "" || n == name) && !inFlight {
			a.unfiredWhy = unfiredByMarker
		}
	}
}

// armRefusal restarts the dependencies as the attempt starts: open
// connections reset, new ones refused for window. Undone, it waits for
// the window to end, so that the retries find the database back.
func armRefusal(a *armed, proxies []deps.Proxy, window time.Duration) func() {
	until := time.Now().Add(window)
	for _, p := range proxies {
		p.RefuseNew(deps.RefuseStarting, window)
		p.DropConnections()
	}
	return func() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		select {
		case <-t.C:
		case <-a.run.Done():
		}
		for _, p := range proxies {
			p.AcceptNew()
		}
	}
}

// depProxies returns the proxies of the dependency called name, or of
// every dependency when name is empty, in name order.
func (a *armed) depProxies(name string) []deps.Proxy {
	if name != "" {
		if p, ok := a.deps[name]; ok {
			return []deps.Proxy{p}
		}
		return nil
	}
	names := make([]string, 0, len(a.deps))
	for n := range a.deps {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]deps.Proxy, 0, len(names))
	for _, n := range names {
		out = append(out, a.deps[n])
	}
	return out
}

// needsDep says why f cannot act on a target whose declared dependencies
// are deps, or "" when it can: the dependency faults and the crashes at a
// commit act in a dependency's proxy.
func needsDep(f faults.Fault, proxies map[string]deps.Proxy) string {
	name := ""
	switch x := f.(type) {
	case faults.DependencyFault:
		name = x.Dependency()
	case faults.CrashFault:
		if !faults.OnCommit(x.CrashPoint()) {
			return ""
		}
	default:
		return ""
	}
	if len(proxies) == 0 {
		return "the target declares no dependency: declare the database it keeps its state in under dependencies: (and hand it {{deps.NAME.url}}) so that idemcheck can put a proxy in front of it"
	}
	if name != "" {
		if _, ok := proxies[name]; !ok {
			names := make([]string, 0, len(proxies))
			for n := range proxies {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Sprintf("the fault acts on dependency %q, which the target does not declare (it declares %s)", name, strings.Join(names, ", "))
		}
	}
	return ""
}

// DepProblem says what a dependency's proxy saw go wrong that makes the
// target untestable through it (a target that insists on TLS, a database
// that does not answer or speaks another protocol), or "".
func DepProblem(p deps.Proxy) string {
	evs := p.Control().Events().All()
	if err := deps.InsistsOnTLS(evs); err != nil {
		return err.Error() + ": the proxy speaks plain text to the target; let it connect with sslmode=prefer or disable for the test"
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if ev := evs[i]; ev.Kind == deps.EventProblem && ev.Err != nil {
			return ev.Err.Error()
		}
	}
	return ""
}
