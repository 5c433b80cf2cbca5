package faults

import "time"

// NameClientTimeout is the registered name of ClientTimeout.
const NameClientTimeout = "client-timeout"

// ClientTimeout sends the request and gives up before the reply: the
// target runs to the end, but the client never learns what happened. The
// proxy holds the target's reply until the client has gone, so the client
// times out even against a fast target.
type ClientTimeout struct {
	// Timeout is how long the client waits.
	Timeout Duration `json:"timeout"`
}

// Name implements Fault.
func (*ClientTimeout) Name() string { return NameClientTimeout }

// ClientTimeout implements ClientFault.
func (f *ClientTimeout) ClientTimeout() time.Duration { return time.Duration(f.Timeout) }

// Intercept implements ProxyFault: forward, then withhold the reply until
// the client gives up.
func (f *ClientTimeout) Intercept(ex Exchange) {
	_, _ = ex.Forward()
	select {
	case <-ex.ClientGone():
	case <-time.After(time.Duration(f.Timeout) + 5*time.Second):
		// The client should have gone long ago; do not hold forever.
	}
	ex.Reset()
}

// Validate rejects a timeout that cannot work.
func (f *ClientTimeout) Validate() error { return positive("timeout", f.Timeout) }

// Within implements Waiting: a copy whose timeout is at most d.
func (f *ClientTimeout) Within(d time.Duration) Fault {
	if time.Duration(f.Timeout) <= d {
		return f
	}
	c := *f
	c.Timeout = Duration(d)
	return &c
}
