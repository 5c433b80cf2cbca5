package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// highWater de-duplicates by time, not by id: it keeps the created time of
// the newest event processed (durably, in DIR/cursor) and treats any event
// not newer as already processed. Events are processed one at a time. It
// skips every redelivery and survives crashes, yet an event that a later
// one overtook is acknowledged without ever being processed.
type highWater struct {
	path string
	// sem serialises processing: a one-slot semaphore, so that waiting
	// watches the request's context.
	sem    chan struct{}
	cursor int64
	have   bool
}

func newHighWater(d dedupDeps) (dedup, error) {
	h := &highWater{path: filepath.Join(d.dir, "cursor"), sem: make(chan struct{}, 1)}
	b, err := os.ReadFile(h.path)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &h.cursor); err != nil {
			return nil, errors.New("cursor file " + h.path + " does not hold a Unix time; remove it to start over")
		}
		h.have = true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return h, nil
}

func (h *highWater) begin(ctx context.Context, ev event) (claim, verdict, error) {
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	if h.have && ev.Created <= h.cursor {
		<-h.sem
		return nil, duplicate, nil
	}
	return &hwClaim{h: h, created: ev.Created}, process, nil
}

type hwClaim struct {
	h       *highWater
	created int64
}

// done moves the cursor and ends the turn; on error the turn is still
// held, for release.
func (c *hwClaim) done() error {
	tmp := c.h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(c.created, 10)), 0o600); err != nil {
		return err
	}
	if f, err := os.Open(tmp); err == nil {
		_ = f.Sync()
		f.Close()
	}
	if err := os.Rename(tmp, c.h.path); err != nil {
		return err
	}
	c.h.cursor, c.h.have = c.created, true
	<-c.h.sem
	return nil
}

func (c *hwClaim) release() { <-c.h.sem }
