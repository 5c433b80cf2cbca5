package payments

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Stripe's error types used by this fake.
const (
	errInvalidRequest = "invalid_request_error"
	errIdempotency    = "idempotency_error"
	errAPI            = "api_error"
)

// apiError is the body of a Stripe-style error reply:
// {"error":{"type":...,"message":...}}.
type apiError struct {
	Status  int    `json:"-"`
	Type    string `json:"type"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
}

// invalidParam returns a 400 invalid_request_error about param.
func invalidParam(param, format string, args ...any) *apiError {
	return &apiError{Status: http.StatusBadRequest, Type: errInvalidRequest, Param: param, Message: fmt.Sprintf(format, args...)}
}

// reply returns the error as a reply.
func (e *apiError) reply() reply {
	return jsonReply(e.Status, struct {
		Error *apiError `json:"error"`
	}{e})
}

// reply is a finished response: what the server answers, and what it
// stores against an idempotency key to replay later.
type reply struct {
	status   int
	body     []byte
	replayed bool
}

// jsonReply returns a reply with v encoded as JSON.
func jsonReply(status int, v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own types are encoded here; this is a bug in the fake.
		panic(fmt.Sprintf("payments: encode %T: %v", v, err))
	}
	return reply{status: status, body: append(b, '\n')}
}

// write sends the reply.
func (rp reply) write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if rp.replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(rp.status)
	_, _ = w.Write(rp.body)
}

// injectedUnavailable is the reply to a request a FailBefore or FailAfter
// rule matched. Both give the same reply, so that the target cannot tell
// whether the charge happened.
func injectedUnavailable() reply {
	return (&apiError{Status: http.StatusServiceUnavailable, Type: errAPI, Message: "injected: service unavailable"}).reply()
}

// handleNotFound answers every request no route matches.
func handleNotFound(w http.ResponseWriter, r *http.Request) {
	(&apiError{
		Status:  http.StatusNotFound,
		Type:    errInvalidRequest,
		Message: fmt.Sprintf("Unrecognized request URL (%s: %s).", r.Method, r.URL.Path),
	}).reply().write(w)
}
