package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// privateProbe, as the first argument of this test binary run as the
// program, makes it say whether it kept its /proc files private, then
// wait for its standard input to end.
const privateProbe = "__private"

func probePrivate(context.Context) int {
	fmt.Printf("private=%v\n", private())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestProgramKeepsItsEnvironmentPrivate: the program marks itself not
// dumpable, so that a target run as the same user cannot read its
// environment (CI tokens a target is never given) from /proc; where the
// test does not run as root, reading it is refused.
func TestProgramKeepsItsEnvironmentPrivate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	cmd := exec.Command(os.Args[0], privateProbe)
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_MAIN=1", "IDEMCHECK_TEST_PRIVATE_VALUE=s3cret-never-shown")
	cmd.WaitDelay = 10 * time.Second
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	watchdog := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer watchdog.Stop()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "private=true", strings.TrimSpace(line))
	if os.Geteuid() != 0 {
		_, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
		assert.ErrorIs(t, err, os.ErrPermission, "another process of the same user reads nothing")
	}
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
}
