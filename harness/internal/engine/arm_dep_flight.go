package engine

import (
	"context"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/record"
)

// depFlight tells the dependencies' proxies which intent is in flight,
// for targets whose statements carry no marker (deps.Control.SetInFlight):
// the intent of the one attempt running, none while attempts overlap. It
// also keeps the waits armers leave for an intent (armed.settleLater), and
// why a fault armed in a proxy did not act (armed.unfiredWhy).
type depFlight struct {
	mu      sync.Mutex
	running int
	waits   map[string][]func(context.Context)
	// unfired is why, by intent and attempt, a fault armed for the
	// attempt did not act.
	unfired map[[2]int]string
}

// start notes an attempt at marker beginning.
func (f *depFlight) start(proxies map[string]deps.Proxy, marker string) {
	if len(proxies) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running++
	x := marker
	if f.running > 1 {
		x = ""
	}
	for _, p := range proxies {
		p.Control().SetInFlight(x)
	}
}

// end notes an attempt ending.
func (f *depFlight) end(proxies map[string]deps.Proxy) {
	if len(proxies) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	for _, p := range proxies {
		p.Control().SetInFlight("")
	}
}

// later keeps w for marker's next settle.
func (f *depFlight) later(marker string, w func(context.Context)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.waits == nil {
		f.waits = map[string][]func(context.Context){}
	}
	f.waits[marker] = append(f.waits[marker], w)
}

// noteUnfired keeps why the fault armed for attempt n of intent id did
// not act.
func (f *depFlight) noteUnfired(id, n int, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unfired == nil {
		f.unfired = map[[2]int]string{}
	}
	f.unfired[[2]int{id, n}] = why
}

// unfiredWhy returns why the fault armed for attempt n of intent id did
// not act, or "" when no armer said.
func (f *depFlight) unfiredWhy(id, n int) string {
	if f == nil {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unfired[[2]int{id, n}]
}

// settle runs the waits kept for marker, each bounded by itself and ctx,
// and reports whether there were any.
func (f *depFlight) settle(ctx context.Context, marker string) bool {
	f.mu.Lock()
	ws := f.waits[marker]
	delete(f.waits, marker)
	f.mu.Unlock()
	for _, w := range ws {
		w(ctx)
	}
	return len(ws) > 0
}

// settle waits for what an armer left going for the intent (a stalled
// statement still held, the work of a target whose client left) to land,
// once its attempts are over, and counts its effects again: what lands
// after the last attempt is still that attempt's window's. The target's
// own records are read again until a read finds nothing new (bounded):
// the work that goes on after its call may write them a little later.
func (r *runner) settle(in *record.Intent) {
	if r.deps == nil || !r.deps.settle(r.s.ctx, in.Marker) || len(in.Attempts) == 0 {
		return
	}
	last := &in.Attempts[len(in.Attempts)-1]
	for i := 1; ; i++ {
		observed := r.observe(in.Marker)
		before := last.LedgerAfter
		last.LedgerAfter = r.ledger.LastSeq()
		if !observed || i == settleReads || i > 1 && last.LedgerAfter == before || !r.waitUntil(time.Now().Add(settleQuiet)) {
			return
		}
	}
}

// A settle reads the target's records up to settleReads times,
// settleQuiet apart, until one finds nothing new.
const (
	settleReads = 8
	settleQuiet = 50 * time.Millisecond
)
