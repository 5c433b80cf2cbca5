package payments

import (
	"fmt"
	"net/http"

	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
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
func (e *apiError) reply() httpfake.Reply {
	return httpfake.JSON(e.Status, struct {
		Error *apiError `json:"error"`
	}{e})
}

func injectedUnavailable() httpfake.Reply {
	return (&apiError{Status: http.StatusServiceUnavailable, Type: errAPI, Message: "injected: service unavailable"}).reply()
}

// handleNotFound answers every request no route matches.
func handleNotFound(w http.ResponseWriter, r *http.Request) {
	(&apiError{
		Status:  http.StatusNotFound,
		Type:    errInvalidRequest,
		Message: fmt.Sprintf("Unrecognized request URL (%s: %s).", r.Method, r.URL.Path),
	}).reply().Write(w)
}
