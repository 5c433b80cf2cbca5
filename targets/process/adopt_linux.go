package process

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes this process the one that the orphans of its
// descendants are re-parented to (PR_SET_CHILD_SUBREAPER), instead of
// init: what a target leaves behind when it, or what started it, ends (a
// daemon, a double fork into a session of its own with the tag dropped
// from its environment, which the sweeps by tag cannot find) stays a
// child of this process, where KillAdopted finds it. It reports whether
// the kernel took it.
func BecomeSubreaper() bool {
	ok := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
	if ok {
		subreaper.Store(true)
	}
	return ok
}

// subreaper is set once this process is one: its children are then not
// only the calls and servers it started (see ownChildrenOf).
var subreaper atomic.Bool

// adoptedWait bounds KillAdopted: how long the re-parenting of what the
// killed processes had started is waited for.
const adoptedWait = 2 * time.Second

// KillAdopted kills the live children of this process but those in keep,
// and their own children as the kernel re-parents them here in turn,
// until none is left (or adoptedWait has passed). It is for the end of a
// run, when every child left is something a target left behind. It
// returns how many processes it killed. Zombies are left to whoever
// reaps them: this process's exit hands them to init.
func KillAdopted(keep ...int) int {
	self := os.Getpid()
	deadline := time.Now().Add(adoptedWait)
	killed := map[int]bool{}
	for {
		var live []int
		for _, pid := range procPids(pidWindow{all: true}) {
			st, ok := readStat(pid)
			if ok && st.ppid == self && st.state != 'Z' && !slices.Contains(keep, pid) {
				live = append(live, pid)
			}
		}
		reapAdopted(pidWindow{all: true})
		if len(live) == 0 || time.Now().After(deadline) {
			return len(killed)
		}
		for _, pid := range live {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		// A killed process's children come here once it has died: there
		// is no event to wait on.
		time.Sleep(5 * time.Millisecond)
	}
}

// reapAdopted reaps the zombies, among the processes w covers, that this
// process adopted as a subreaper and that ended on their own (or were
// killed): without it they would stay until the run ends, one for each
// background helper a tool leaves on each call. Only a zombie in a
// process group that is neither its own nor this process's is reaped:
// every process idemcheck starts itself leads a group of its own or
// stays in idemcheck's, so its wait (exec.Cmd's) is never taken from it.
// A zombie that left for a group or session of its own is left for the
// exit. It returns how many it reaped.
func reapAdopted(w pidWindow) int {
	if !subreaper.Load() {
		return 0
	}
	self, own := os.Getpid(), syscall.Getpgrp()
	n := 0
	for _, pid := range procPids(w) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || len(f[0]) != 1 || f[0][0] != 'Z' {
			continue
		}
		ppid, err1 := strconv.Atoi(string(f[1]))
		pgrp, err2 := strconv.Atoi(string(f[2]))
		if err1 != nil || err2 != nil || ppid != self || pgrp == pid || pgrp == own {
			continue
		}
		var ws syscall.WaitStatus
		if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err == nil && got == pid {
			n++
		}
	}
	return n
}
