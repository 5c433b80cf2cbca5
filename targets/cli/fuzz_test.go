package cli

import (
	"testing"
	"time"
)

// FuzzReply feeds arbitrary stdout, stderr and exit codes to the reply
// reader: whatever a tool prints, the adapter reports it, never panics.
func FuzzReply(f *testing.F) {
	f.Add([]byte(`{"ok":true,"effect":"created","data":{"id":"ord_1"}}`), "", 0)
	f.Add([]byte("log\n{\"ok\":false,\"reason\":\"x\"}\n"), "boom\n", 75)
	f.Add([]byte(`{"data":{"id":[1,{"a":null}]}}{"x":1}`), "", 1)
	f.Add([]byte("\x00\xff{"), "\xff", 0)
	f.Add([]byte(`[1,2,3]`), "", 0)
	t := &Target{cfg: Config{Command: []string{"tool"}, Effect: DefaultEffectJSON, Identity: "data.id.1.a", RetryExitCodes: []int{ExitTempFail}}}
	f.Fuzz(func(_ *testing.T, stdout []byte, stderr string, code int) {
		rep := t.reply(result{stdout: stdout, stderr: stderr, exitCode: code}, time.Second, "", 0)
		if rep.Outcome == "" {
			panic("no outcome")
		}
		if len(rep.Body) > maxBody {
			panic("body longer than maxBody")
		}
		doc, err := parseReply(stdout)
		if (doc == nil) == (err == nil) {
			panic("parseReply must return a document or an error")
		}
	})
}
