package process

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ring must always equal the suffix of everything written, whatever the
// sizes of the writes, around and across the wrap point.
func TestTailKeepsTheSuffix(t *testing.T) {
	const size = 16
	sizes := [][]int{
		{0, 1, 2, 3},        // under capacity
		{16},                // exactly full in one write
		{15, 1, 1},          // fill, then wrap by one
		{10, 10, 10, 10},    // wrap repeatedly
		{5, 40},             // a write larger than the ring
		{17, 3, 16, 16, 31}, // mixed
	}
	for _, ss := range sizes {
		t.Run(fmt.Sprint(ss), func(t *testing.T) {
			tl := newTail(size)
			var all strings.Builder
			next := byte('a')
			for _, n := range ss {
				p := make([]byte, n)
				for i := range p {
					p[i] = next
					next = 'a' + (next-'a'+1)%26
				}
				w, err := tl.Write(p)
				if err != nil || w != n {
					t.Fatalf("Write(%d bytes) = %d, %v", n, w, err)
				}
				all.Write(p)
				want := all.String()[max(0, all.Len()-size):]
				if got := tl.String(); got != want {
					t.Fatalf("after writing %d bytes: got %q, want %q", all.Len(), got, want)
				}
			}
		})
	}
}

func TestTailRandomWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2)) // fixed seed: the same writes every run
	tl := newTail(64)
	var all []byte
	for range 2000 {
		p := make([]byte, rng.IntN(100))
		for i := range p {
			p[i] = byte('0' + rng.IntN(10))
		}
		_, _ = tl.Write(p)
		all = append(all, p...)
		if got, want := tl.String(), string(all[max(0, len(all)-64):]); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct{ why, in, want string }{
		{"empty output", "", ""},
		{"only newlines", "\n\n", ""},
		{"fewer lines than asked", "a\nb\n", "a\nb"},
		{"no trailing newline", "a\nb", "a\nb"},
		{"more lines than asked", "1\n2\n3\n4\n", "3\n4"},
	}
	for _, tt := range tests {
		if got := lastLines(tt.in, 2); got != tt.want {
			t.Errorf("%s: lastLines(%q, 2) = %q, want %q", tt.why, tt.in, got, tt.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		why   string
		in    string
		state byte
		pgrp  int
		ok    bool
	}{
		{"plain", "42 (shop) S 1 42 42 0 -1", 'S', 42, true},
		{"comm with spaces and parens", "42 (a) b (c) Z 1 7 7", 'Z', 7, true},
		{"truncated", "42 (shop) S 1", 0, 0, false},
		{"no comm", "42 shop S 1 42", 0, 0, false},
		{"bad pgrp", "42 (shop) S 1 x", 0, 0, false},
	}
	for _, tt := range tests {
		state, pgrp, ok := parseStat([]byte(tt.in))
		if state != tt.state || pgrp != tt.pgrp || ok != tt.ok {
			t.Errorf("%s: parseStat(%q) = %q, %d, %v; want %q, %d, %v",
				tt.why, tt.in, state, pgrp, ok, tt.state, tt.pgrp, tt.ok)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (shop) S 1 42 42 0 -1"))
	f.Add([]byte("1 ()) R 0 1"))
	f.Add([]byte("1 (x) \x00 1 1")) // a NUL is no state
	f.Fuzz(func(t *testing.T, stat []byte) {
		state, _, ok := parseStat(stat)
		if ok && state == 0 {
			t.Fatalf("parseStat(%q) ok with no state", stat)
		}
	})
}

// TestPidWindow: the pids handed out from a process on, across the wrap
// at the kernel's maximum; a process started after the window was read
// is in a window read after it.
func TestPidWindow(t *testing.T) {
	for _, tc := range []struct {
		why       string
		w         pidWindow
		in, notIn []int
	}{
		{"no wrap", pidWindow{first: 100, last: 200}, []int{100, 150, 200}, []int{1, 99, 201, 4000}},
		{"wrapped at the maximum since", pidWindow{first: 4000, last: 50}, []int{4000, 4194304, 1, 50}, []int{51, 3999}},
		{"the last pid unknown", pidWindow{all: true}, []int{1, 4000}, nil},
	} {
		for _, pid := range tc.in {
			assert.True(t, tc.w.holds(pid), "%s: %d", tc.why, pid)
		}
		for _, pid := range tc.notIn {
			assert.False(t, tc.w.holds(pid), "%s: %d", tc.why, pid)
		}
	}

	require.False(t, windowFrom(os.Getpid()).all, "/proc/loadavg gives the last pid")
	cmd := exec.Command("sleep", "5")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	assert.Contains(t, procPids(windowFrom(os.Getpid())), cmd.Process.Pid, "a child started after this process is in its window")
	mark, ok := StartOf(cmd.Process.Pid)
	require.True(t, ok)
	assert.Contains(t, procPids(windowFrom(mark.Pid)), cmd.Process.Pid)
	assert.NotContains(t, procPids(windowFrom(mark.Pid)), os.Getpid(), "an older process is not in a child's window")
}

// TestEnvValue: an entry is found whole, first or last, never as the
// prefix of a longer value; any value when asked for.
func TestEnvValue(t *testing.T) {
	env := []byte("A=1\x00IDEMCHECK_SCOPE=7.1\x00IDEMCHECK_SCOPE_X=2\x00B=")
	for _, tc := range []struct {
		entry    string
		anyValue bool
		want     string
		found    bool
	}{
		{"IDEMCHECK_SCOPE=7.1", false, "7.1", true},
		{"IDEMCHECK_SCOPE=7", false, "", false},
		{"IDEMCHECK_SCOPE=", true, "7.1", true},
		{"A=1", false, "1", true},
		{"B=", false, "", true},
		{"C=", true, "", false},
	} {
		v, ok := envValue(env, []byte(tc.entry), tc.anyValue)
		assert.Equal(t, tc.found, ok, tc.entry)
		assert.Equal(t, tc.want, v, tc.entry)
	}
}

// TestOwnChildrenOf: the scan skips this process's own children, except
// where it is pid 1 and orphans become its children.
func TestOwnChildrenOf(t *testing.T) {
	assert.Equal(t, 4242, ownChildrenOf(4242))
	assert.Equal(t, -1, ownChildrenOf(1), "as a container's first process, a child may be an orphan of a call")
}
