package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// verdict is what a de-duplication strategy says about a delivery.
type verdict int

const (
	// process: the caller holds a claim and must call done or release.
	process verdict = iota
	// duplicate: already processed (or so the strategy believes): ack it.
	duplicate
	// inFlight: another delivery of the event is being processed: 409.
	inFlight
)

// A dedup is a de-duplication strategy, one per profile (dedup_*.go).
type dedup interface {
	// begin decides about one invoice.due delivery.
	begin(ctx context.Context, ev event) (claim, verdict, error)
}

// A claim is the right to process one event.
type claim interface {
	// done records that the event was processed.
	done() error
	// release gives the event up, so that a redelivery processes it.
	release()
}

// dedupDeps is what a strategy is built from.
type dedupDeps struct {
	// dir survives restarts when the handler runs with --state.
	dir     string
	boot    string
	lease   time.Duration
	lruSize int
	now     func() time.Time
}

// newBootID returns a random id for one start of the process: a claim
// carrying another boot's id was left by a process that died.
func newBootID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
