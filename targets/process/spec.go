package process

import (
	"io"
	"path/filepath"
	"time"
)

// DefaultReadyTimeout is how long Start and Restart wait for readiness when
// Ready.Timeout is zero.
const DefaultReadyTimeout = 10 * time.Second

// StopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
const StopGrace = 3 * time.Second

// Spec says how to run a target server.
type Spec struct {
	// Name names the target in messages, e.g. "shop". If empty, the base
	// name of Command[0] is used.
	Name string
	// Command is the argv. Command[0] is resolved with exec.LookPath, in the
	// harness's PATH, unless it contains a slash.
	Command []string
	// Env holds "K=V" entries added on top of OwnBaseEnv() (not the
	// whole of os.Environ(): see Inherited); later entries
	// win. The environment is captured by Start and reused by Restart.
	Env []string
	// Dir is the working directory; "" means the harness's current
	// directory at the time of Start. Restart uses the same directory.
	Dir string
	// Ready says how to know the server is up.
	Ready Ready
	// Stdout, if set, receives a copy of the combined stdout and stderr, in
	// addition to the buffer behind Process.Output. Once a write to it
	// fails it is no longer written to; the target never sees the error.
	Stdout io.Writer
}

// Ready says how to know that a started server is up. With neither URL nor
// Addr set, a server counts as ready as soon as it has been started.
type Ready struct {
	// URL, if set, is fetched with GET until it answers with a 2xx status.
	// Any other status (a 503 while the server warms up, a 404 from a
	// wrong path) means not ready yet. Redirects are not followed.
	URL string
	// Addr, used when URL is empty, is dialled over TCP ("host:port") until
	// a connection succeeds.
	Addr string
	// Timeout bounds the wait; zero means DefaultReadyTimeout.
	Timeout time.Duration
}

func (r Ready) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultReadyTimeout
}

// label is the name used in messages.
func (s Spec) label() string {
	if s.Name != "" {
		return s.Name
	}
	if len(s.Command) > 0 {
		return filepath.Base(s.Command[0])
	}
	return "process"
}
