package cli

import (
	"bytes"
	"errors"
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
// zombie (WNOWAIT): while it is unreaped its pid, which is also its
// process group id, stays reserved, so signalling -pid cannot hit a
// stranger. (The same technique as targets/process.)
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

// waitGroupGone waits until no live process is left in process group
// pgid (whose members have been sent SIGKILL), or groupGoneLimit passes.
// Most tools start no children: then the group is empty at once and no
// /proc scan is needed. A group id stays reserved while any member
// lives, so signal 0 to it cannot reach a stranger.
func waitGroupGone(pgid int) {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(groupGoneLimit)
	delay := 100 * time.Microsecond
	for hasLiveMember(pgid) && time.Now().Before(deadline) {
		// The kernel finishes SIGKILLed processes asynchronously and says
		// nothing when it is done: poll, with a short backoff.
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
}

// hasLiveMember scans /proc for a process of group pgid that is not a
// zombie. Without /proc it cannot tell and says no.
func hasLiveMember(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
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
// "pid (comm) state ppid pgrp ...". comm may contain spaces and
// parentheses, so fields are counted from the last ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
