package httpfake

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
)

// ReplayedHeader marks a reply served from the idempotency store.
const ReplayedHeader = "Idempotent-Replayed"

// Reply is a finished response: what a fake answers, and what it stores
// against an idempotency key to replay later, headers included.
type Reply struct {
	Status   int
	Header   http.Header
	Body     []byte
	Replayed bool
	// Effect is the ledger's sequence number of the effect that handling
	// the request recorded, 0 when it recorded none (a replay, an error).
	Effect int64
}

// JSON returns a reply with v encoded as JSON.
func JSON(status int, v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		// Only the fakes' own types are encoded here: a bug in the fake.
		panic(fmt.Sprintf("httpfake: encode %T: %v", v, err))
	}
	return Reply{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: append(b, '\n')}
}

// Write sends the reply.
func (rp Reply) Write(w http.ResponseWriter) {
	h := w.Header()
	maps.Copy(h, rp.Header)
	if rp.Replayed {
		h.Set(ReplayedHeader, "true")
	}
	w.WriteHeader(rp.Status)
	_, _ = w.Write(rp.Body)
}

// ResetConnection drops the connection under w without a reply, with a TCP
// reset where it can, so the client sees "connection reset by peer".
func ResetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (e.g. HTTP/2): let net/http abort the stream.
		panic(http.ErrAbortHandler)
	}
	if w, ok := conn.(*watchedConn); ok {
		conn = w.Conn
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
