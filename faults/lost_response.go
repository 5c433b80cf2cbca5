package faults

// NameLostResponse is the registered name of LostResponse.
const NameLostResponse = "lost-response"

// LostResponse forwards the request, lets the target finish, and answers
// the client with an error instead of the target's reply: the side effect
// happened, the client cannot know it.
type LostResponse struct {
	// Status is what the client sees instead of the reply (default 503).
	Status int `json:"status"`
}

// Name implements Fault.
func (*LostResponse) Name() string { return NameLostResponse }

// Intercept implements ProxyFault.
func (f *LostResponse) Intercept(ex Exchange) {
	_, _ = ex.Forward()
	status := f.Status
	if status == 0 {
		status = 503
	}
	ex.Respond(status, jsonHeader(), []byte(`{"ok":false,"error":"injected: reply lost"}`))
}

// Validate accepts only error statuses a client would see instead of a reply.
func (f *LostResponse) Validate() error {
	if f.Status < 400 || f.Status > 599 {
		return invalid("status", "%d: expected an error status from 400 to 599", f.Status)
	}
	return nil
}
