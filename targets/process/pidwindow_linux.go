package process

import (
	"bytes"
	"os"
	"strconv"
)

// A pidWindow holds the pids the kernel handed out from first on: a
// process started after the one that got first has a pid in it. The
// kernel gives pids out in increasing order and wraps around at its
// maximum, so the window runs from first up to the last pid given out,
// across the wrap when there was one. A scan for a process's descendants
// reads the /proc entries of the pids in the window only, not those of
// every process on the machine.
type pidWindow struct {
	first, last int
	all         bool // the last pid could not be read: every pid may be in it
}

// windowFrom returns the window of the pids handed out from first on, up
// to now. A process that starts after this call is not in it: read a new
// window to see it.
func windowFrom(first int) pidWindow {
	last, ok := lastPid()
	if !ok || first <= 0 {
		return pidWindow{all: true}
	}
	return pidWindow{first: first, last: last}
}

// holds reports whether pid was handed out within the window (or may have
// been).
func (w pidWindow) holds(pid int) bool {
	switch {
	case w.all:
		return true
	case w.first <= w.last:
		return pid >= w.first && pid <= w.last
	default: // the pids wrapped around since first
		return pid >= w.first || pid <= w.last
	}
}

// lastPid reads the pid the kernel handed out last in this pid namespace:
// the last field of /proc/loadavg.
func lastPid() (int, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	b = bytes.TrimSpace(b)
	i := bytes.LastIndexByte(b, ' ')
	if i < 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(string(b[i+1:]))
	return pid, err == nil && pid > 0
}

// procPids lists the pids of the processes in /proc that are in w.
func procPids(w pidWindow) []int {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err == nil && w.holds(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
