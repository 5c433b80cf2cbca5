package webhooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// durable is the correct strategy (and, with markFirst, the
// mark-seen-first flaw): two files per event in DIR/events, named by a hash
// of the event id.
//
//	<hash>.claim  created with O_EXCL (an atomic claim, also between
//	              processes), holding a lease: the boot id of the process
//	              that claimed it and an expiry
//	<hash>.done   written, fsynced, once the event was processed
//
// A claim is stale when its boot is not this process's (the holder died)
// or its lease expired (the holder is wedged); the next delivery takes it
// over by replacing the file (write, fsync, rename). Takeovers are
// serialised within one process by a mutex; between processes a real
// deployment would compare-and-swap the lease in its database.
type durable struct {
	dir       string
	boot      string
	lease     time.Duration
	now       func() time.Time
	markFirst bool

	mu sync.Mutex
}

// leaseRecord is the content of a claim file.
type leaseRecord struct {
	Event string    `json:"event"`
	Boot  string    `json:"boot"`
	Until time.Time `json:"until"`
}

func newDurable(d dedupDeps) (dedup, error) {
	return openDurable(d, false)
}

// newMarkFirst registers the event id as seen, then processes the event.
// The event is marked done when it is claimed; done and release do nothing,
// so a failed or interrupted processing is never retried.
func newMarkFirst(d dedupDeps) (dedup, error) {
	return openDurable(d, true)
}

func openDurable(d dedupDeps, markFirst bool) (*durable, error) {
	dir := filepath.Join(d.dir, "events")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &durable{dir: dir, boot: d.boot, lease: d.lease, now: d.now, markFirst: markFirst}, nil
}

func (s *durable) base(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16]))
}

func (s *durable) begin(_ context.Context, ev event) (claim, verdict, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.base(ev.ID)
	switch _, err := os.Stat(base + ".done"); {
	case err == nil:
		return nil, duplicate, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, 0, err
	}
	if s.markFirst {
		// The flaw: seen before it is processed.
		if err := s.writeNew(base+".done", leaseRecord{Event: ev.ID, Boot: s.boot}); err != nil {
			return nil, 0, err
		}
		return noClaim{}, process, nil
	}
	rec := leaseRecord{Event: ev.ID, Boot: s.boot, Until: s.now().Add(s.lease)}
	err := s.writeNew(base+".claim", rec)
	if err == nil {
		return &durableClaim{s: s, base: base}, process, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, 0, err
	}
	// Claimed before: by this process and still leased, or stale. A claim
	// file that does not parse was torn by a crash mid-write: stale.
	var old leaseRecord
	if b, rerr := os.ReadFile(base + ".claim"); rerr == nil && json.Unmarshal(b, &old) == nil &&
		old.Boot == s.boot && s.now().Before(old.Until) {
		return nil, inFlight, nil
	}
	if err := s.replace(base+".claim", rec); err != nil {
		return nil, 0, err
	}
	return &durableClaim{s: s, base: base}, process, nil
}

// writeNew creates path, failing with fs.ErrExist if it is there, and
// makes it durable.
func (s *durable) writeNew(path string, v any) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(v)
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return werr
	}
	return s.syncDir()
}

// replace overwrites path atomically and durably.
func (s *durable) replace(path string, v any) error {
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	if err := s.writeNew(tmp, v); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return s.syncDir()
}

func (s *durable) syncDir() error {
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // some file systems cannot sync a directory
	return nil
}

type durableClaim struct {
	s    *durable
	base string
}

func (c *durableClaim) done() error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	err := c.s.writeNew(c.base+".done", leaseRecord{Boot: c.s.boot, Until: c.s.now()})
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	// Done is durable: the claim no longer matters, even if removing it
	// fails.
	_ = os.Remove(c.base + ".claim")
	return c.s.syncDir()
}

func (c *durableClaim) release() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	_ = os.Remove(c.base + ".claim")
	_ = c.s.syncDir()
}

// noClaim is mark-seen-first's: the event is already marked done, and a
// failure un-marks nothing.
type noClaim struct{}

func (noClaim) done() error { return nil }
func (noClaim) release()    {}
