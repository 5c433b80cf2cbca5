package faults

// NameReset is the registered name of Reset.
const NameReset = "reset"

// Reset forwards the request, lets the target finish, then resets the
// client's connection: the reply is lost in transit.
type Reset struct{}

// Name implements Fault.
func (*Reset) Name() string { return NameReset }

// Intercept implements ProxyFault.
func (*Reset) Intercept(ex Exchange) {
	_, _ = ex.Forward()
	ex.Reset()
}
