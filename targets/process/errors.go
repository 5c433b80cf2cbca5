package process

import (
	"fmt"
	"strings"
)

// Reasons a StartError gives; the timeout reason is followed by the last
// probe error.
const (
	reasonExited   = "exited before it was ready"
	reasonNotReady = "not ready after %v: %v"
	reasonNoStart  = "could not be started: %v"
)

// outputLines is how many trailing lines of output an error message shows.
const outputLines = 10

// StartError reports a target that did not come up: it could not be
// started, it exited while starting, or it was not ready in time. Whatever
// was started has been killed by the time a StartError is returned.
type StartError struct {
	// Name is the target's name (Spec.Name).
	Name string
	// Reason says what went wrong, e.g. "exited before it was ready" or
	// "not ready after 10s: dial tcp 127.0.0.1:8080: connect: connection
	// refused".
	Reason string
	// ExitCode is the exit code of a process that exited by itself, or -1 if
	// it was still running (and then killed), was killed by a signal, or
	// never started.
	ExitCode int
	// Output is the tail of the combined stdout and stderr.
	Output string

	status string // what was seen, e.g. "exit status 3"
	want   string // what was expected, e.g. "an HTTP response from GET …"
	hint   string // what to do
}

// Error says what was expected, what was seen, the last lines of output and
// what to do next.
func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "process %q: %s", e.Name, e.Reason)
	switch {
	case e.status != "":
		fmt.Fprintf(&b, " (%s)", e.status)
	case e.ExitCode >= 0:
		fmt.Fprintf(&b, " (exit code %d)", e.ExitCode)
	}
	if e.want != "" {
		fmt.Fprintf(&b, "; expected %s", e.want)
	}
	if lines := lastLines(e.Output, outputLines); lines == "" {
		b.WriteString("; it printed nothing")
	} else {
		b.WriteString("; last output:\n")
		b.WriteString(quoted(lines))
		b.WriteByte('\n')
	}
	hint := e.hint
	if hint == "" {
		hint = "run the command by hand with the same environment and directory to see what it does"
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("hint: ")
	b.WriteString(hint)
	return b.String()
}

// quoted sets each of lines apart from the message around it ("    | ").
func quoted(lines string) string {
	return "    | " + strings.ReplaceAll(lines, "\n", "\n    | ")
}

// lastLines returns at most n trailing lines of s, without the final
// newline.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	i := len(s)
	for range n {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return s
		}
		i = j
	}
	return s[i+1:]
}
