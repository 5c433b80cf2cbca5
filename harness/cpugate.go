package harness

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// cpuSample is the machine's processor time so far, in clock ticks: all
// of it, and the part spent idle (idle and waiting on I/O).
type cpuSample struct {
	total, idle uint64
}

// readCPU reads the aggregate "cpu" line of /proc/stat.
func readCPU() (cpuSample, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}, false
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	fields := bytes.Fields(line)
	if len(fields) < 5 || string(fields[0]) != "cpu" {
		return cpuSample{}, false
	}
	var s cpuSample
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return cpuSample{}, false
		}
		if i == 7 { // steal: another machine's, not this one's to use
			break
		}
		s.total += v
		if i == 3 || i == 4 { // idle, iowait
			s.idle += v
		}
	}
	return s, true
}

// cpuGate says whether the machine has processor time to spare for one
// more target: whether the share of its processors' time spent working
// since the gate last looked is below the budget. It looks at most every
// cpuGateEvery, so that the targets it let start have had time to show
// their load before more are let in; each look lets in as many as the
// spare processors allow (admitsFor).
type cpuGate struct {
	budget float64
	// procs is the number of processors the budget is a share of.
	procs int
	read  func() (cpuSample, bool)
	now   func() time.Time

	mu     sync.Mutex
	last   cpuSample
	lastAt time.Time
	// left is how many more targets the last look lets in.
	left int
}

// cpuGateEvery is the least time between two looks of a cpuGate.
const cpuGateEvery = 150 * time.Millisecond

// newCPUGate returns a gate that lets a target in while less than budget
// (a share of the machine, 0 to 1) of the processors' time is spent
// working; nil for no budget, or where the machine's processor time
// cannot be read.
func newCPUGate(budget float64, procs int) *cpuGate {
	if budget <= 0 {
		return nil
	}
	g := &cpuGate{budget: budget, procs: max(procs, 1), read: readCPU, now: time.Now}
	s, ok := g.read()
	if !ok {
		return nil
	}
	g.last, g.lastAt = s, g.now()
	return g
}

// allows says whether one more target may start now. When it has looked
// too recently to tell, it says yes only while the last look lets more in
// (left); a caller asks again later.
func (g *cpuGate) allows() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if now.Sub(g.lastAt) < cpuGateEvery {
		if g.left > 0 {
			g.left--
			return true
		}
		return false
	}
	s, ok := g.read()
	if !ok {
		return true
	}
	total, idle := s.total-g.last.total, s.idle-g.last.idle
	g.last, g.lastAt = s, now
	g.left = 0
	if total == 0 {
		return false
	}
	busy := float64(total-idle) / float64(total)
	if busy >= g.budget {
		return false
	}
	g.left = g.admitsFor(busy) - 1
	return true
}

// admitsFor is how many targets one look lets in when busy (below the
// budget) is the share of the processors' time spent working: one, and
// two more for every processor's worth of time to spare within the
// budget. A target costs about half a processor while it starts (a
// process started, a server bound, the first calls made) and less after;
// letting one in per look only would leave a machine idle for seconds at
// the start of a run of many targets.
func (g *cpuGate) admitsFor(busy float64) int {
	return 1 + int(2*(g.budget-busy)*float64(g.procs))
}
