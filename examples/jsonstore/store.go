package jsonstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Record is one entry of the store: the effect.
type Record struct {
	ID          string `json:"id,omitempty"`
	Key         string `json:"key"`
	Note        string `json:"note"`
	Amount      int64  `json:"amount"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// document is the whole file.
type document struct {
	Records []Record `json:"records"`
}

var errMismatch = errors.New("the idempotency key was used with another payload")

// store is the JSON file, written the profile's way.
type store struct {
	path   string
	locked bool
	window time.Duration
}

func fingerprint(r Record) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", r.Note, r.Amount)))
	return hex.EncodeToString(sum[:8])
}

// put adds r under its key, or returns the record the key already has.
func (s *store) put(ctx context.Context, r Record) (Record, bool, error) {
	if s.locked {
		unlock, err := s.lock()
		if err != nil {
			return Record{}, false, err
		}
		defer unlock()
	}
	doc, err := s.load()
	if err != nil {
		return Record{}, false, err
	}
	r.Fingerprint = fingerprint(r)
	for _, old := range doc.Records {
		if old.Key == r.Key {
			if old.Fingerprint != r.Fingerprint {
				return Record{}, false, errMismatch
			}
			return old, false, nil
		}
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	r.ID = "r_" + hex.EncodeToString(id[:])
	doc.Records = append(doc.Records, r)
	if s.window > 0 {
		t := time.NewTimer(s.window) // the other work a put does before it saves
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	return r, true, s.save(doc)
}

func (s *store) get(key string) (Record, error) {
	doc, err := s.load()
	if err != nil {
		return Record{}, err
	}
	for _, r := range doc.Records {
		if r.Key == key {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("no record has the key %q", key)
}

// load reads the whole store; a missing or empty file is an empty store.
func (s *store) load() (document, error) {
	var doc document
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(b) == 0) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("%s: %w", s.path, err)
	}
	return doc, nil
}

// save writes the whole store aside and renames it over the old file, so
// that a reader never sees half of it. Without the lock (rewrite), two
// saves each replace the file whole: the one renamed last wins.
func (s *store) save(doc document) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".jsonstore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// lock takes the store's exclusive lock (flock on PATH.lock), which the
// kernel releases when the process dies.
func (s *store) lock() (func(), error) {
	f, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
