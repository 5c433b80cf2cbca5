package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// probeProgress tells the session's progress how the probes go, at least
// every progressEvery while they run, so that a slow target never leaves
// the terminal silent for long.
type probeProgress struct {
	total    atomic.Int64
	done     atomic.Int64
	attempts atomic.Int64
	current  atomic.Value // string: the probe running
	// waitEnd is when the wait the probe is in ends (Unix nanoseconds; 0
	// when it waits for none): a late retry waits seconds after its
	// intent, while the trials may be over already.
	waitEnd atomic.Int64
	start   time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
}

// startProgress starts telling the progress of total probes; the returned
// function stops it, and returns once it has.
func (r *runner) startProgress(total int) func() {
	pp := &probeProgress{start: time.Now(), stop: make(chan struct{})}
	pp.total.Store(int64(total))
	r.pp = pp
	if r.s.progress == nil {
		return func() {}
	}
	pp.wg.Add(1)
	go func() {
		defer pp.wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-pp.stop:
				return
			case <-r.s.ctx.Done():
				return
			case <-tick.C:
				r.s.progress(pp.line(r.s.spec.Name))
			}
		}
	}()
	return func() {
		close(pp.stop)
		pp.wg.Wait()
	}
}

// line is the progress line: probes done, attempts made, time so far, and
// the probe running.
func (pp *probeProgress) line(name string) string {
	s := fmt.Sprintf("%s: probing: %d of %d probes done, %s, %s", name, pp.done.Load(), pp.total.Load(),
		plural(int(pp.attempts.Load()), "attempt", "attempts"), time.Since(pp.start).Round(100*time.Millisecond))
	if cur, _ := pp.current.Load().(string); cur != "" {
		if left := time.Until(time.Unix(0, pp.waitEnd.Load())); left > 0 {
			cur += fmt.Sprintf(", %s left to wait", left.Round(100*time.Millisecond))
		}
		s += " (now: " + cur + ")"
	}
	return s
}

// waiting says until when the probe running waits (the zero time: it
// waits no more).
func (r *runner) waiting(until time.Time) {
	if r.pp == nil {
		return
	}
	if until.IsZero() {
		r.pp.waitEnd.Store(0)
		return
	}
	r.pp.waitEnd.Store(until.UnixNano())
}

// probing says which probe runs now.
func (r *runner) probing(what string) {
	if r.pp != nil {
		r.pp.current.Store(what)
	}
}

// planned counts n more probes to run.
func (r *runner) planned(n int) {
	if r.pp != nil {
		r.pp.total.Add(int64(n))
	}
}

// probed counts a probe done.
func (r *runner) probed() {
	if r.pp != nil {
		r.pp.done.Add(1)
	}
}

// attempted counts an attempt made.
func (r *runner) attempted() {
	if r.pp != nil {
		r.pp.attempts.Add(1)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
