package shop

import (
	"encoding/json"
	"net/http"
)

// The values of the effect field: what the request did.
const (
	effectCreated     = "created"
	effectNoop        = "noop"
	effectWouldCreate = "would_create"
)

// headerReplayed marks a reply served from the idempotency store.
const headerReplayed = "Idempotent-Replayed"

// envelope is the JSON body of every reply:
// {"ok":…, "effect":…, "data":…} or {"ok":false, "error":…}.
type envelope struct {
	OK     bool            `json:"ok"`
	Effect string          `json:"effect,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// reply is a status and an envelope. Data is kept as raw JSON so that a
// stored reply replays byte for byte.
type reply struct {
	status int
	body   envelope
}

func success(effect string, data any) reply {
	raw, err := json.Marshal(data)
	if err != nil {
		// data is always one of this package's plain structs or maps.
		panic("shop: marshal reply data: " + err.Error())
	}
	return reply{status: http.StatusOK, body: envelope{OK: true, Effect: effect, Data: raw}}
}

func failure(status int, msg string) reply {
	return reply{status: status, body: envelope{Error: msg}}
}

// presenter writes replies the way a profile presents them.
type presenter struct {
	// effects says whether replies carry the effect field at all.
	effects bool
}

// send writes rep. A replay keeps the stored status and data, says
// "effect":"noop" instead of the original effect, and carries the
// Idempotent-Replayed header. A profile without effects says neither:
// nothing tells its replay from a first run.
func (p presenter) send(w http.ResponseWriter, rep reply, replayed bool) {
	env := rep.body
	if replayed {
		if p.effects {
			w.Header().Set(headerReplayed, "true")
		}
		if env.OK {
			env.Effect = effectNoop
		}
	}
	if !p.effects {
		env.Effect = ""
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	// The client may be gone; there is nobody to tell.
	_ = json.NewEncoder(w).Encode(env)
}
