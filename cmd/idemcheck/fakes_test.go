package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// TestFakesRunsEveryRegisteredFake: idemcheck fakes starts every fake the
// registry knows, each endpoint at the address its flag gives, and prints
// a line for each.
func TestFakesRunsEveryRegisteredFake(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []string{"fakes"}
	want := map[string]string{} // line label → address
	for _, d := range config.Builtin().Fakes {
		for i, e := range d.Endpoints {
			addr := freeAddr(t)
			args = append(args, "--"+e.Flag, addr)
			label := d.Name // the line of the fake, which names its further endpoints too
			if i > 0 {
				label = d.Name + " " + e.Placeholder
			}
			want[label] = addr
		}
	}
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errb strings.Builder
		done <- run(ctx, args, strings.NewReader(""), pw, &errb)
		pw.Close()
	}()
	got := map[string]string{}
	r := bufio.NewReader(pr)
	for len(got) < len(want) {
		line, err := r.ReadString('\n')
		require.NoError(t, err, "lines so far: %v", got)
		for label, addr := range want {
			name, placeholder, further := strings.Cut(label, " ")
			if strings.HasPrefix(line, name+" ") && strings.Contains(line, addr) && (!further || strings.Contains(line, placeholder+" "+addr)) {
				got[label] = addr
			}
		}
	}
	assert.Equal(t, want, got, "a line for each registered fake, with each of its endpoints")
	for label, addr := range want {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err, "%s listens at %s", label, addr)
		conn.Close()
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(30 * time.Second):
		t.Fatal("fakes did not stop when interrupted")
	}
}

// TestFakesRefusesAnAddressOffThisMachine: a flag's address that is not
// loopback is refused before anything listens: exit 2.
func TestFakesRefusesAnAddressOffThisMachine(t *testing.T) {
	code, _, errs := runCLI(t, context.Background(), "fakes", "--payments", "10.1.2.3:4242")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "is not loopback")
}
