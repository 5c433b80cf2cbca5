package process

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adoptChildEnv makes TestReapAdoptedLeavesOwnChildren's subprocess the
// subreaper under test: the test process itself must not become one.
const adoptChildEnv = "PROCESS_TEST_ADOPT"

// zombieChildren lists this process's zombie children, by pid, with
// their process groups.
func zombieChildren() map[int]int {
	out := map[int]int{}
	self := os.Getpid()
	for _, pid := range procPids(pidWindow{all: true}) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		if len(f) > 2 && string(f[0]) == "Z" && string(f[1]) == strconv.Itoa(self) {
			pgrp, _ := strconv.Atoi(string(f[2]))
			out[pid] = pgrp
		}
	}
	return out
}

// TestReapAdoptedLeavesOwnChildren: a subreaper reaps the zombie of a
// helper a tool left in the background (adopted once the tool exited),
// and leaves the zombie of a child it started itself, whose wait is its
// exec.Cmd's.
func TestReapAdoptedLeavesOwnChildren(t *testing.T) {
	if os.Getenv(adoptChildEnv) == "1" {
		os.Exit(adoptChild())
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReapAdoptedLeavesOwnChildren$")
	cmd.Env = append(os.Environ(), adoptChildEnv+"=1")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "reaped 1, own child waited: exit 0")
}

func adoptChild() int {
	fail := func(msg string) int {
		os.Stdout.WriteString(msg + "\n")
		return 1
	}
	if !BecomeSubreaper() {
		return fail("not a subreaper")
	}
	tool := exec.Command("sh", "-c", "sleep 0.01 &")
	tool.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as a CLI call is started
	if err := tool.Run(); err != nil {
		return fail("tool: " + err.Error())
	}
	own := exec.Command("sh", "-c", "exit 0")
	own.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := own.Start(); err != nil {
		return fail("own: " + err.Error())
	}
	// Both end on their own: there is no event to wait on.
	deadline := time.Now().Add(20 * time.Second)
	for {
		z := zombieChildren()
		if _, ok := z[own.Process.Pid]; ok && len(z) == 2 {
			break
		}
		if time.Now().After(deadline) {
			return fail("zombies never came: " + strings.TrimSpace(strconv.Itoa(len(z))))
		}
		time.Sleep(5 * time.Millisecond)
	}
	n := reapAdopted(pidWindow{all: true})
	err := own.Wait()
	if err != nil {
		return fail("own child's wait: " + err.Error())
	}
	os.Stdout.WriteString("reaped " + strconv.Itoa(n) + ", own child waited: exit " + strconv.Itoa(own.ProcessState.ExitCode()) + "\n")
	return 0
}
