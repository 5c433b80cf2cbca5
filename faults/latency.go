package faults

import "time"

// NameLatency is the registered name of Latency.
const NameLatency = "latency"

// Latency delays the request before forwarding it; the reply is delivered
// as it is. It shows targets (and clients) that misbehave when slow.
type Latency struct {
	// Delay is how long the request is held.
	Delay Duration `json:"delay"`
}

// Name implements Fault.
func (*Latency) Name() string { return NameLatency }

// Intercept implements ProxyFault.
func (f *Latency) Intercept(ex Exchange) {
	select {
	case <-time.After(time.Duration(f.Delay)):
	case <-ex.ClientGone():
		ex.Reset()
		return
	}
	up, err := ex.Forward()
	if err != nil {
		ex.Reset()
		return
	}
	ex.Respond(up.Status, up.Header, up.Body)
}
