package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/targets/mcp"
)

// A command that is no MCP server (it prints garbage, or says nothing and
// hangs) is an error with a reason, never a panic, and leaves no process.
func TestNotAnMCPServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		why string
		cmd []string
		// wait bounds the handshake: a server that says nothing is
		// waited for until then, whatever the handshake's own limit.
		wait time.Duration
	}{
		{"garbage on stdout, then exit", []string{"/bin/sh", "-c", "echo 'hello, I am not JSON-RPC'; echo oops >&2"}, 30 * time.Second},
		{"silent, and never answers the handshake", []string{"/bin/sh", "-c", "exec sleep 600"}, 2 * time.Second},
		// Held whole, the endless line grew idemcheck's memory by
		// gigabytes until the handshake's deadline.
		{"one endless line", []string{"/bin/sh", "-c", "exec cat /dev/zero"}, 30 * time.Second},
	} {
		t.Run(tc.why, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.wait)
			defer cancel()
			w := &world{t: t, token: t.Name() + time.Now().Format("150405.000000000")}
			_, err := mcp.New(ctx, mcp.Config{Name: "bad", Command: tc.cmd, Timeout: 500 * time.Millisecond,
				Env: map[string]string{"IDEMCHECK_TEST_TOKEN": w.token}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "did not complete the MCP handshake")
			if tc.why == "one endless line" {
				assert.Contains(t, err.Error(), "the server sent a message over 16 MiB (or a line that never ended)")
			}
			assert.Empty(t, w.live(), "no process is left behind")
		})
	}
}

// FuzzSchema: any input schema a server lists is read without a panic,
// and every generated input is one the harness can generate.
func FuzzSchema(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":2},"b":{"enum":[1,"x",null]},"c":{"type":["null","string"],"maxLength":3},"d":{"type":"object","properties":{"e":{"type":"boolean"}},"required":["e"]}},"required":["d"]}`)
	f.Add(`{"type":"object"}`)
	f.Add(`{"type":"object","properties":{"n":{"type":"number","minimum":1e18,"maximum":1e300}}}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		s, err := mcp.ParseSchema(v)
		if err != nil {
			return
		}
		_ = s.MarkerProperty()
		_ = s.KeyArgument()
		_ = s.DryRunArgument()
		for _, p := range s.Leaves() {
			in, ok := mcp.InputFor(p)
			if !ok {
				continue
			}
			switch in.Kind {
			case "int":
				assert.LessOrEqual(t, in.Min, in.Max)
				assert.LessOrEqual(t, in.Max-in.Min, 2_000_000_000, "the generator's range cannot overflow")
			case "choice":
				assert.NotEmpty(t, in.Choices)
			case "string":
				assert.GreaterOrEqual(t, in.Length, 0)
			default:
				t.Fatalf("unknown input kind %q", in.Kind)
			}
		}
	})
}
