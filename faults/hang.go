package faults

import (
	"io"
	"time"
)

// NameHang is the registered name of Hang.
const NameHang = "hang"

// Hang holds the request without forwarding it until the client gives up:
// the request is lost on its way, and the client cannot know it.
type Hang struct {
	// Timeout is how long the client waits.
	Timeout Duration `json:"timeout"`
}

// Name implements Fault.
func (*Hang) Name() string { return NameHang }

// ClientTimeout implements ClientFault.
func (f *Hang) ClientTimeout() time.Duration { return time.Duration(f.Timeout) }

// Intercept implements ProxyFault.
func (f *Hang) Intercept(ex Exchange) {
	// Read the body: net/http notices a client hanging up only once the
	// request body has been consumed.
	_, _ = io.Copy(io.Discard, io.LimitReader(ex.Request().Body, maxBody))
	select {
	case <-ex.ClientGone():
	case <-time.After(time.Duration(f.Timeout) + 5*time.Second):
	}
	ex.Reset()
}

// Validate rejects a timeout that cannot work.
func (f *Hang) Validate() error { return positive("timeout", f.Timeout) }

// Within implements Waiting: a copy whose timeout is at most d.
func (f *Hang) Within(d time.Duration) Fault {
	if time.Duration(f.Timeout) <= d {
		return f
	}
	c := *f
	c.Timeout = Duration(d)
	return &c
}
