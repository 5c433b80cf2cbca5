package faults

import (
	"sync/atomic"
	"time"
)

// SetCloseWait makes Proxy.Close wait d for the exchanges in progress,
// until the returned function restores the wait.
func SetCloseWait(d time.Duration) (restore func()) {
	old := closeWait
	closeWait = d
	return func() { closeWait = old }
}

// WithoutWire makes p forward every request the full way (see
// proxy_wire.go).
func WithoutWire(p *Proxy) { p.wire = nil }

// CountWire counts the exchanges run in wire form, and those whose reply
// was read in wire form too, until the returned function stops it.
func CountWire(requests, replies *atomic.Int64) (stop func()) {
	wireRan = func(replyToo bool) {
		requests.Add(1)
		if replyToo {
			replies.Add(1)
		}
	}
	return func() { wireRan = nil }
}
