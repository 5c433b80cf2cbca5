package process

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// pPID is waitid's P_PID id type.
const pPID = 1

// groupGoneLimit bounds the wait for SIGKILLed group members to die. Only a
// process stuck in uninterruptible sleep takes longer.
const groupGoneLimit = 5 * time.Second

// waitExitedNoReap blocks until the child pid has exited, leaving it a
// zombie (WNOWAIT): while it is unreaped its pid and process group id stay
// reserved, so signalling -pid cannot hit a stranger.
func waitExitedNoReap(pid int) error {
	var info [16]uint64 // a siginfo_t is 128 bytes on Linux; its content is not needed
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return e
		}
	}
}

// waitGroupGone waits, polling with a short backoff, until no live process
// is left in process group pgid, or groupGoneLimit passes. The members have
// already been sent SIGKILL; this waits for the kernel to finish them off,
// so that they no longer hold ports or files.
func waitGroupGone(pgid int) {
	deadline := time.Now().Add(groupGoneLimit)
	delay := 100 * time.Microsecond // most groups are gone at once
	for !groupGone(pgid) && time.Now().Before(deadline) {
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// groupGone reports whether process group pgid has no live member. Zombies
// count as gone: they hold nothing, and whether they are reaped is up to
// their new parent (init or a subreaper), not to us.
func groupGone(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return true
	}
	return !hasLiveMember(pgid)
}

// hasLiveMember scans /proc for a process of group pgid that is not a
// zombie. Without /proc it cannot tell and says no. The group's members
// were started by its leader or after it, so only the pids handed out
// since pgid are looked at.
func hasLiveMember(pgid int) bool {
	for _, pid := range procPids(windowFrom(pgid)) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // it exited while we looked
		}
		state, group, ok := parseStat(stat)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat extracts the state and process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp ...". comm may contain spaces and parentheses,
// so fields are counted from the last ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	// The state is one letter (R, S, D, Z, T, t, X, …); anything else is
	// not a stat line.
	if len(fields) < 3 || len(fields[0]) != 1 || !isLetter(fields[0][0]) {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// groupStopped reports whether every thread of every live process in group
// pgid is stopped. SIGSTOP is delivered asynchronously: kill(2) returns
// before the threads notice it, and until they do a server may still
// answer.
func groupStopped(pgid int) bool {
	for _, pid := range procPids(windowFrom(pgid)) {
		dir := "/proc/" + strconv.Itoa(pid)
		stat, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		if _, group, ok := parseStat(stat); !ok || group != pgid {
			continue
		}
		if !threadsStopped(dir + "/task") {
			return false
		}
	}
	return true
}

// threadsStopped reports whether all threads listed under a /proc task
// directory are stopped (or dead).
func threadsStopped(taskDir string) bool {
	tasks, err := os.ReadDir(taskDir)
	if err != nil {
		return true // the process has gone
	}
	for _, t := range tasks {
		stat, err := os.ReadFile(taskDir + "/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		state, _, ok := parseStat(stat)
		if !ok {
			continue
		}
		switch state {
		case 'T', 't', 'Z', 'X':
		default:
			return false
		}
	}
	return true
}

// WaitExited blocks until the child pid has exited, leaving it unreaped
// (WNOWAIT): while it is a zombie its pid, which is also its process group
// id, stays reserved, so signalling -pid cannot reach a stranger. Reap it
// afterwards (e.g. with exec.Cmd.Wait). Other packages that run processes
// in their own group (targets/cli) use it.
func WaitExited(pid int) error { return waitExitedNoReap(pid) }

// WaitGroupGone waits until no live process is left in process group pgid,
// whose members were sent SIGKILL, or a few seconds pass.
func WaitGroupGone(pgid int) { waitGroupGone(pgid) }
