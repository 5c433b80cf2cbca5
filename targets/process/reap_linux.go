package process

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Environment variables that tag the processes idemcheck starts, so that a
// descendant that left its process group (setsid, a double fork) can still
// be found in /proc and killed. Both are inherited by every descendant that
// does not replace its environment.
const (
	// ScopeVar holds a value unique to one incarnation of a server or one
	// call of a CLI tool: once that ends, every process carrying it is
	// killed.
	ScopeVar = "IDEMCHECK_SCOPE"
	// OwnerVar holds the identity (OwnerID) of the idemcheck process the
	// tagged process descends from: once that process has gone, whatever
	// still carries it is a leftover.
	OwnerVar = "IDEMCHECK_OWNER"
)

var (
	scopeSeq atomic.Uint64
	selfID   = sync.OnceValue(func() string { return identity(os.Getpid()) })
)

// identity names a process by pid and start time (clock ticks since boot),
// so that a reused pid is not taken for the process that had it before.
func identity(pid int) string {
	st, _ := startTime(pid)
	return fmt.Sprintf("%d.%d", pid, st)
}

// OwnerID returns this process's identity as written in OwnerVar:
// "PID.STARTTIME".
func OwnerID() string { return selfID() }

// OwnerAlive reports whether the process an OwnerVar value names is still
// running (the same pid with the same start time).
func OwnerAlive(owner string) bool {
	pidText, _, ok := bytes.Cut([]byte(owner), []byte("."))
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(string(pidText))
	if err != nil || pid <= 0 {
		return false
	}
	return identity(pid) == owner
}

// NewScope returns a fresh "IDEMCHECK_SCOPE=…" environment entry, unique to
// this idemcheck process and call.
func NewScope() string {
	return fmt.Sprintf("%s=%s.%d", ScopeVar, OwnerID(), scopeSeq.Add(1))
}

// startTime reads field 22 of /proc/PID/stat.
func startTime(pid int) (uint64, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 20 { // state is field 3, starttime field 22
		return 0, false
	}
	st, err := strconv.ParseUint(string(fields[19]), 10, 64)
	return st, err == nil
}

// Tagged is a live process found by its environment.
type Tagged struct {
	Pid   int
	Value string // the value of the variable looked for
}

// FindTagged lists the live processes (zombies excluded, this process
// excluded) whose environment sets name; if value is not empty, only those
// where it is set to value. Processes of other users, whose environment
// cannot be read, are not listed.
func FindTagged(name, value string) []Tagged { return findTagged(name, value, Since{}) }

// findTagged is FindTagged among the processes started at or after since
// (the zero Since: all). Only the pids handed out since then are looked
// at (a pidWindow); of those, a process's stat file, which is cheap, says
// when it started and who its parent is, and its environment, which the
// kernel reads from the process's memory, is read only for those recent
// enough. A child of this process is not a descendant of the process
// since marks: it is another call or server idemcheck started, with a
// scope of its own, and the process since marks, itself such a child,
// has ended (except where this process is a container's first, which
// orphans are re-parented to).
func findTagged(name, value string, since Since) []Tagged {
	w := pidWindow{all: true}
	if since.Pid > 0 {
		w = windowFrom(since.Pid)
	}
	self := os.Getpid()
	ours := ownChildrenOf(self)
	entry := []byte(name + "=" + value)
	var found []Tagged
	for _, pid := range procPids(w) {
		if pid == self {
			continue
		}
		if since.Ticks > 0 {
			st, ok := readStat(pid)
			if !ok || st.start < since.Ticks || st.ppid == ours || st.state == 'Z' {
				continue
			}
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || len(env) == 0 { // gone, not ours, or a zombie
			continue
		}
		if v, ok := envValue(env, entry, value == ""); ok {
			found = append(found, Tagged{Pid: pid, Value: v})
		}
	}
	return found
}

// ownChildrenOf is the parent pid whose children findTagged skips as
// calls and servers of their own: self, except where self is a
// container's first process (pid 1) or a subreaper (BecomeSubreaper),
// which orphans are re-parented to, so that a descendant that left its
// group would look like a child of its own; there none is skipped (-1).
func ownChildrenOf(self int) int {
	if self == 1 || subreaper.Load() {
		return -1
	}
	return self
}

// envValue finds entry ("NAME=VALUE") in env, a NUL-separated
// environment, and returns its value; with anyValue, entry is "NAME="
// and any value is taken.
func envValue(env, entry []byte, anyValue bool) (string, bool) {
	for len(env) > 0 {
		kv := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			kv, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		switch {
		case anyValue && bytes.HasPrefix(kv, entry):
			return string(kv[len(entry):]), true
		case !anyValue && bytes.Equal(kv, entry):
			_, v, _ := bytes.Cut(kv, []byte{'='})
			return string(v), true
		}
	}
	return "", false
}

// procStat is what findTagged reads of /proc/PID/stat.
type procStat struct {
	state byte
	ppid  int
	start uint64 // clock ticks since boot
}

// readStat reads the state (field 3), parent (field 4) and start time
// (field 22) of /proc/PID/stat.
func readStat(pid int) (procStat, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procStat{}, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	start, err2 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: fields[0][0], ppid: ppid, start: start}, true
}

// KillTagged SIGKILLs every live process whose environment holds entry
// ("NAME=VALUE", exactly), scanning /proc again after each round, since a
// process may fork while it is being killed, until none is left or a few
// seconds pass. It returns how many processes it killed.
func KillTagged(entry string) int { return KillTaggedSince(entry, Since{}) }

// KillTaggedSince is KillTagged for the processes started at or after
// since (see StartOf): the descendants of the process that started then.
// Older processes are not even looked at, which makes the scan cheap.
func KillTaggedSince(entry string, since Since) int {
	name, value, ok := bytes.Cut([]byte(entry), []byte("="))
	if !ok || len(value) == 0 {
		return 0
	}
	killed := map[int]bool{}
	deadline := time.Now().Add(groupGoneLimit)
	delay := 100 * time.Microsecond
	for {
		left := findTagged(string(name), string(value), since)
		if time.Now().After(deadline) {
			return len(killed)
		}
		if len(left) == 0 {
			// A dying process drops its memory (and with it the
			// environment read above) before it closes its files and
			// sockets: wait until each one killed is a zombie or gone.
			if !anyLiving(killed) {
				if since.Pid > 0 {
					reapAdopted(windowFrom(since.Pid))
				}
				return len(killed)
			}
			time.Sleep(delay)
			delay = min(2*delay, 20*time.Millisecond)
			continue
		}
		for _, p := range left {
			if syscall.Kill(p.Pid, syscall.SIGKILL) == nil {
				killed[p.Pid] = true
			}
		}
		time.Sleep(delay) // the kernel finishes them off; there is no event to wait on
		delay = min(2*delay, 20*time.Millisecond)
	}
}

// anyLiving reports whether one of pids is still a process that has not
// finished exiting: not a zombie, not gone. A pid reused meanwhile by a
// stranger counts as living, which only makes the caller wait until its
// deadline.
func anyLiving(pids map[int]bool) bool {
	for pid := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		if state, _, ok := parseStat(stat); ok && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// Since marks the start of a process, for KillTaggedSince: its
// descendants were started at or after it, so they got pids handed out
// after its own and started no earlier than its clock tick.
type Since struct {
	// Pid is the process's pid (0: any pid).
	Pid int
	// Ticks is when it started, in clock ticks since boot (field 22 of
	// /proc/PID/stat; 0: any time).
	Ticks uint64
}

// StartOf returns the mark of process pid's start, for KillTaggedSince.
// Read it while pid cannot be reused (a child not yet reaped).
func StartOf(pid int) (Since, bool) {
	t, ok := startTime(pid)
	if !ok {
		return Since{}, false
	}
	return Since{Pid: pid, Ticks: t}, true
}
