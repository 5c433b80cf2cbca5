package faults

import (
	"net/http"
	"time"
)

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
		h := http.Header{}
		h.Set(ProxyErrorHeader, "1")
		ex.Respond(http.StatusBadGateway, h, []byte(ProxyErrorPrefix+err.Error()))
		return
	}
	ex.Respond(up.Status, up.Header, up.Body)
}

// Validate rejects a negative delay.
func (f *Latency) Validate() error {
	if f.Delay < 0 {
		return invalid("delay", "%s: expected zero or more", time.Duration(f.Delay))
	}
	return nil
}

// Within implements Waiting: a copy whose delay is at most d.
func (f *Latency) Within(d time.Duration) Fault {
	if time.Duration(f.Delay) <= d {
		return f
	}
	c := *f
	c.Delay = Duration(d)
	return &c
}
