package faults

import "net/http"

// NameUnavailableBefore is the registered name of UnavailableBefore.
const NameUnavailableBefore = "503-before"

// UnavailableBefore answers 503 without forwarding: the target never sees
// the request. A correct client may retry; a correct target has nothing to
// de-duplicate.
type UnavailableBefore struct{}

// Name implements Fault.
func (*UnavailableBefore) Name() string { return NameUnavailableBefore }

// Intercept implements ProxyFault.
func (*UnavailableBefore) Intercept(ex Exchange) {
	ex.Respond(http.StatusServiceUnavailable, jsonHeader(), []byte(`{"ok":false,"error":"injected: service unavailable"}`))
}

func jsonHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Retry-After", "0")
	return h
}
