package shop

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// StoreFile is the name of the durable key store inside the --state
// directory.
const StoreFile = "idempotency-keys.jsonl"

// The states of a key in the append-only JSONL store.
const (
	stateInProgress = "in_progress"
	stateComplete   = "complete"
	stateReleased   = "released"
)

// keyRecord is one line of the store. The store is append-only: the last
// line about a key is its state.
//
//	{"key":"k1","state":"in_progress","op":"orders","fingerprint":"…","boot":"5f0c…","at":"…"}
//	{"key":"k1","state":"complete","op":"orders","fingerprint":"…","status":200,"reply":{…},"at":"…"}
//	{"key":"k2","state":"released","op":"orders","fingerprint":"…","at":"…"}
//
// A released record without a fingerprint (written by an older shop, or
// by a profile whose guard fingerprints nothing) frees the key for any
// request.
type keyRecord struct {
	Key         string `json:"key"`
	State       string `json:"state"`
	Op          string `json:"op,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Boot is the boot id of the process that claimed the key: an
	// in_progress record from another boot was left by a process that
	// died mid-request.
	Boot string `json:"boot,omitempty"`
	// Token is the payments key of the claim, for a guard that draws one
	// per claim rather than passing the client's key on.
	Token  string    `json:"token,omitempty"`
	Status int       `json:"status,omitempty"`
	Reply  *envelope `json:"reply,omitempty"`
	At     time.Time `json:"at"`
	// Admission identifies an admission of the key to a store that
	// forgets keys (bounded-keys, expiring-keys).
	Admission string `json:"admission,omitempty"`
}

// journal is the durable key store: an append-only JSONL file in the state
// directory, loaded once at start; every record is written with one
// write(2) and fsynced before the caller goes on, so that a record the
// shop acted on survives a SIGKILL or a power cut. A nil *journal is a
// store that keeps nothing (the shop runs without --state): every method
// is a no-op.
//
// One process owns the directory at a time: the harness restarts a
// target only after the previous process is dead.
type journal struct {
	path string
	// loaded are the records found at start, in file order.
	loaded []keyRecord

	mu sync.Mutex
	f  *os.File
	// err is the first write error. It is sticky: a store that could not
	// persist a record refuses new claims rather than lose them silently.
	err error
}

// openJournal opens or creates dir/StoreFile and loads it. A last line cut
// short by a crash in the middle of a write is dropped (it was never
// acknowledged); any other bad line is an error, as the store is then not
// what this program wrote.
func openJournal(dir string) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	path := filepath.Join(dir, StoreFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("key store: %w", err)
	}
	j := &journal{path: path, f: f}
	if err := j.load(); err != nil {
		f.Close()
		return nil, err
	}
	// Make the file's directory entry durable too, in case it was just
	// created. Some file systems cannot sync a directory; that is no
	// reason not to serve.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return j, nil
}

func (j *journal) load() error {
	raw, err := io.ReadAll(j.f)
	if err != nil {
		return fmt.Errorf("key store %s: %w", j.path, err)
	}
	if end := bytes.LastIndexByte(raw, '\n') + 1; end < len(raw) {
		// A torn last record: cut it off so that the next append starts on
		// a line of its own.
		if err := j.f.Truncate(int64(end)); err != nil {
			return fmt.Errorf("key store %s: drop torn last line: %w", j.path, err)
		}
		raw = raw[:end]
	}
	for n, line := range bytes.Split(raw, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec keyRecord
		if err := json.Unmarshal(line, &rec); err != nil || rec.Key == "" {
			return fmt.Errorf("key store %s: line %d is not a key record (%v); move the file away to start empty", j.path, n+1, err)
		}
		j.loaded = append(j.loaded, rec)
	}
	return nil
}

// append writes rec and fsyncs it.
func (j *journal) append(rec keyRecord) error {
	if j == nil {
		return nil
	}
	rec.At = time.Now().UTC()
	line, err := json.Marshal(rec)
	if err != nil {
		// keyRecord holds only strings, numbers and stored replies.
		panic("shop: marshal key record: " + err.Error())
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if _, err := j.f.Write(line); err != nil {
		j.err = fmt.Errorf("key store %s: %w", j.path, err)
		return j.err
	}
	if err := j.f.Sync(); err != nil {
		j.err = fmt.Errorf("key store %s: fsync: %w", j.path, err)
		return j.err
	}
	return nil
}

// failed returns the sticky write error, if any.
func (j *journal) failed() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// records returns what was loaded at start.
func (j *journal) records() []keyRecord {
	if j == nil {
		return nil
	}
	return j.loaded
}

func (j *journal) close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = errors.New("key store is closed")
	}
	return j.f.Close()
}

// storedReply turns a stored record back into a reply.
func (rec keyRecord) storedReply() reply {
	rep := reply{status: rec.Status}
	if rec.Reply != nil {
		rep.body = *rec.Reply
	}
	return rep
}

// newBootID returns a random id for one start of the process. Records
// carry it so that a later start can tell its own in-flight keys from
// the ones a dead process left behind.
func newBootID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}
