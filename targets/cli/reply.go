package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/stderrline"
)

// notStarted is the reply of a call whose process could not be started:
// a failure the tool never saw.
func (t *Target) notStarted(err error) harness.Reply {
	return harness.Reply{
		Outcome: harness.Fail,
		Error:   fmt.Sprintf("cannot run %s: %v", t.cfg.Command[0], err),
	}
}

// reply turns what an invocation did into the attempt's reply. timeout
// is the target's own, after which a tool is killed; fault names the
// client fault of the call ("" for none), and gaveUp, when above 0, says
// that its client gave up after that long: the reply the tool printed is
// lost all the same.
func (t *Target) reply(res result, timeout time.Duration, fault string, gaveUp time.Duration) harness.Reply {
	out := harness.Reply{Forwarded: true, Stderr: res.stderr}
	switch res.killedBy {
	case killCrash:
		out.Outcome = harness.Info
		out.ExitSignal = signalName(syscall.SIGKILL)
		out.Error = "the harness killed the tool's process group (crash fault) before it replied"
		return out
	case killCancel:
		out.Outcome = harness.Info
		out.ExitSignal = signalName(syscall.SIGKILL)
		out.Error = "interrupted: the tool was killed because the run was cancelled"
		return out
	case killTimeout:
		out.Outcome = harness.Info
		out.TimedOut = true
		out.ExitSignal = signalName(syscall.SIGKILL)
		out.Error = fmt.Sprintf("no reply within %s: the tool hung and was killed (SIGKILL to its process group); raise the target's timeout if it is just slow", timeout)
		if gaveUp > 0 {
			out.Error += fmt.Sprintf(" (its client had given up after %s, %s)", gaveUp, fault)
		}
		out.Body = head(res.stdout)
		return out
	}
	if res.waitErr != nil {
		out.Outcome = harness.Info
		out.Error = "cannot tell how the tool ended: " + res.waitErr.Error()
		return out
	}
	if gaveUp > 0 {
		// The client had given up by the time the reply came: the tool
		// ran to the end but nobody read what it said.
		out.Outcome = harness.Info
		out.Withheld = true
		out.Error = fmt.Sprintf("the client gave up after %s (%s); the tool ran to the end (%s) but its reply was lost", gaveUp, fault, ending(res))
		return out
	}
	out.Body = head(res.stdout)
	if res.signal != 0 {
		out.Outcome = harness.Info
		out.ExitSignal = signalName(res.signal)
		out.Error = fmt.Sprintf("the tool crashed: killed by %s%s", out.ExitSignal, stderrHint(res.stderr))
		return out
	}
	out.Status = res.exitCode
	doc, perr := parseReply(res.stdout)
	if doc != nil {
		out.Effect, out.HasEffect = locate(t.cfg.Effect, doc)
		out.Identity, _ = locate(t.cfg.Identity, doc)
	}
	said := reason(doc, res.stderr)
	switch {
	case res.exitCode == 0 && okFalse(doc):
		out.Outcome = harness.Fail
		out.Error = "exit 0, but the reply says \"ok\": false" + said
	case res.exitCode == 0:
		out.Outcome = harness.OK
		if perr != nil {
			out.Error = "exit 0, but stdout is not the JSON reply {ok, effect, data} (" + perr.Error() + "): no effect or identity can be read"
		}
	case slices.Contains(t.cfg.RetryExitCodes, res.exitCode):
		out.Outcome = harness.Info
		out.Error = fmt.Sprintf("exit %d: a temporary failure, the tool invites a retry with the same key%s", res.exitCode, said)
	default:
		out.Outcome = harness.Fail
		out.Error = fmt.Sprintf("exit %d%s", res.exitCode, said)
	}
	if res.truncated {
		out.Error = strings.TrimPrefix(out.Error+"; stdout was longer than 1 MiB and was cut", "; ")
		if out.Outcome == harness.OK && !res.safe {
			// The reply is past the cut, or lost in what came before: what
			// the tool said of its outcome cannot be read, and an exit 0
			// alone is no clean success (as a cut HTTP reply is not). A
			// safe operation's exit 0 stands: no effect is read from it.
			out.Outcome = harness.Info
			out.Effect, out.HasEffect, out.Identity = "", false, ""
			out.Error += ": the reply cannot be read whole, so the outcome is unknown"
		}
	}
	return out
}

func ending(res result) string {
	if res.signal != 0 {
		return "killed by " + signalName(res.signal)
	}
	return "exit " + strconv.Itoa(res.exitCode)
}

func head(b []byte) string {
	if len(b) > maxBody {
		return string(b[:maxBody])
	}
	return string(b)
}

// signalName names a signal as in C, e.g. SIGKILL.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// stderrHint quotes the line of stderr that says what went wrong (see
// stderrline.Telling): "; stderr says: …".
func stderrHint(stderr string) string {
	if line := stderrline.Telling(stderr); line != "" {
		return "; stderr says: " + line
	}
	return ""
}

// parseReply reads the JSON reply on stdout. The whole of stdout should
// be one JSON object; a tool that logs to stdout first is forgiven if its
// last line is the object.
func parseReply(stdout []byte) (map[string]any, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("stdout is empty")
	}
	doc, err := decodeObject(trimmed)
	if err == nil {
		return doc, nil
	}
	if i := bytes.LastIndexByte(trimmed, '\n'); i >= 0 {
		if d, err2 := decodeObject(bytes.TrimSpace(trimmed[i+1:])); err2 == nil {
			return d, nil
		}
	}
	return nil, err
}

func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keeps every digit of a large integer identity
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a JSON %s, not an object", jsonKind(doc))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

func okFalse(doc map[string]any) bool {
	v, ok := doc["ok"].(bool)
	return ok && !v
}

// reason is what the tool said about a failure: the reply's reason or
// error field, else the last line of stderr.
func reason(doc map[string]any, stderr string) string {
	for _, k := range []string{"reason", "error"} {
		if s, _ := locate(k, doc); s != "" {
			if len(s) > 300 {
				s = s[:300] + "…"
			}
			return ": " + s
		}
	}
	return stderrHint(stderr)
}

// locate reads the value at a dotted JSON path of the reply (see
// harness.JSONPath).
func locate(path string, doc map[string]any) (string, bool) {
	if doc == nil {
		return "", false
	}
	return harness.JSONPath(doc, path)
}
