package ordertool

import (
	"encoding/json"
	"fmt"
	"io"
)

// The values of the effect field: what the call did.
const (
	effectCreated     = "created"
	effectNoop        = "noop"
	effectWouldCreate = "would_create"
)

// Error codes, in the reply's "error" field.
const (
	codeUsage       = "usage"
	codeKeyRequired = "key_required"
	codeKeyReused   = "key_reused"
	codeInFlight    = "in_flight"
	codeUnavailable = "downstream_unavailable"
	codeDeclined    = "declined"
	codeStore       = "store_unavailable"
	codeNoDryRun    = "no_dry_run"
)

// envelope is the JSON reply on stdout, {ok, effect, data}:
//
//	{"ok":true,"effect":"created","data":{…}}
//	{"ok":true,"effect":"noop","data":{…},"reason":"replayed: …"}
//	{"ok":true,"effect":"would_create","data":{…},"changes":["would charge …"]}
//	{"ok":false,"error":"key_required","reason":"…"}
type envelope struct {
	OK      bool            `json:"ok"`
	Effect  string          `json:"effect,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Error   string          `json:"error,omitempty"`
	Changes []string        `json:"changes,omitempty"`
}

// response is an envelope and the exit code that goes with it.
type response struct {
	exit int
	body envelope
}

func success(effect string, data any) response {
	return response{exit: ExitOK, body: envelope{OK: true, Effect: effect, Data: mustJSON(data)}}
}

func failure(exit int, code, format string, args ...any) response {
	return response{exit: exit, body: envelope{Error: code, Reason: fmt.Sprintf(format, args...)}}
}

func usageError(format string, args ...any) response {
	return failure(ExitUsage, codeUsage, format, args...)
}

func mustJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only this package's plain structs and maps are marshalled.
		panic("ordertool: marshal reply: " + err.Error())
	}
	return b
}

// emit prints the reply: JSON on stdout, and for a failure a line for
// people on stderr. It returns the exit code.
func emit(stdout, stderr io.Writer, r response) int {
	b, _ := json.Marshal(r.body)
	fmt.Fprintf(stdout, "%s\n", b)
	if !r.body.OK {
		fmt.Fprintf(stderr, "ordertool: %s\n", r.body.Reason)
	}
	return r.exit
}
