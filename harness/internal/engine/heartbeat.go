package engine

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// heartbeatEvery is how often the probes say how far they are, when
// progress is asked for: a target whose every call is slow (a tool run
// once per call) shows it is still at work. (A variable for the tests.)
var heartbeatEvery = 2 * time.Second

// heartbeat is how far the probes of one target are: which probe runs,
// of how many, and how many attempts were made (a burst's copies
// included).
type heartbeat struct {
	mu      sync.Mutex
	done    int
	total   int
	calls   int
	current string
	checks  []string
	tail    bool
}

// at says that the probe named probe, serving checks, runs now; total is
// the number of probes planned.
func (h *heartbeat) at(done, total int, probe string, checks []string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.done, h.total, h.current, h.checks = done, total, probe, checks
	h.mu.Unlock()
}

// tails says that the probes run their tails (the late retries).
func (h *heartbeat) tails() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.done, h.tail, h.current, h.checks = h.total, true, "", nil
	h.mu.Unlock()
}

// called counts n attempts made.
func (h *heartbeat) called(n int) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.calls += n
	h.mu.Unlock()
}

// line is the progress line of name after elapsed.
func (h *heartbeat) line(name string, elapsed time.Duration) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	what := fmt.Sprintf("probe %d of %d", min(h.done+1, h.total), h.total)
	if h.current != "" {
		what += " (" + h.current
		if len(h.checks) > 0 {
			what += ", " + strings.Join(h.checks, ", ")
		}
		what += ")"
	}
	if h.tail {
		what = "late retries"
	}
	return fmt.Sprintf("%s: probing, %s: %d attempts in %s", name, what, h.calls, elapsed.Round(time.Second))
}

// startHeartbeat says every heartbeatEvery how far the probes are, until
// the returned stop is called; it does nothing without progress.
func (s *Session) startHeartbeat() (*heartbeat, func()) {
	if s.progress == nil {
		return nil, func() {}
	}
	h := &heartbeat{}
	stop := make(chan struct{})
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.progress(h.line(s.spec.Name, time.Since(start)))
			case <-stop:
				return
			case <-s.ctx.Done():
				return
			}
		}
	}()
	return h, func() { close(stop); <-done }
}
