package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// record is the state of one key, rewritten whole (write, fsync, rename).
type record struct {
	Fingerprint string  `json:"fingerprint"`
	Done        bool    `json:"done"`
	Reply       *result `json:"reply,omitempty"`
}

// maxKeyLen bounds the idempotency key, as the payments API downstream
// does: a longer key is refused before anything is tried.
const maxKeyLen = 255

// refusal is a result the guard answers instead of acting.
type refusal struct{ res result }

func (r *refusal) Error() string { return r.res.Reason }

func refuse(status int, code, format string, args ...any) error {
	return &refusal{res: result{Error: code, Reason: fmt.Sprintf(format, args...), Status: status}}
}

// claim is a key held for one call.
type claim interface {
	// downstreamKey is the Idempotency-Key to send downstream ("" none).
	downstreamKey() string
	complete(r result)
	fail()
}

// guard decides whether a call acts, replays, or is refused.
type guard interface {
	begin(sessionID, key, fingerprint string) (claim, *result, error)
}

// durable is the guard done right: per key a lock file, claimed with an
// exclusive flock held for the whole call. The claim is atomic across
// goroutines, sessions and processes (each call opens the file afresh),
// and it is a lease: the kernel drops the lock of a process that dies, so
// the next holder that finds the record unfinished knows its writer died
// mid-call and takes over, which is safe because the key goes downstream.
type durable struct {
	dir  string
	wait time.Duration
}

func newDurable(state string) (*durable, error) {
	dir := filepath.Join(state, "keys")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &durable{dir: dir, wait: 2 * time.Second}, nil
}

func (d *durable) begin(_, key, fp string) (claim, *result, error) {
	if key == "" {
		return nil, nil, refuse(400, "key_required", "create_payment charges money: pass idempotency_key, the same on every retry of one request")
	}
	if len(key) > maxKeyLen {
		return nil, nil, refuse(400, "key_invalid", "idempotency_key must be at most %d characters", maxKeyLen)
	}
	sum := sha256.Sum256([]byte(key))
	base := filepath.Join(d.dir, hex.EncodeToString(sum[:16]))
	f, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, refuse(503, "store_unavailable", "idempotency store: %v", err)
	}
	deadline := time.Now().Add(d.wait)
	delay := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, nil, refuse(503, "store_unavailable", "idempotency store: %v", err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, nil, refuse(409, "in_flight", "a call with this idempotency key is still in flight: retry with the same key")
		}
		time.Sleep(delay) // flock has no timeout
		delay = min(2*delay, 20*time.Millisecond)
	}
	var rec record
	if b, err := os.ReadFile(base + ".json"); err == nil && json.Unmarshal(b, &rec) == nil {
		switch {
		case rec.Fingerprint != fp:
			f.Close()
			return nil, nil, refuse(422, "key_reused", "idempotency key %q was used with other arguments: use a new key for a new request", key)
		case rec.Done && rec.Reply != nil:
			f.Close()
			return nil, rec.Reply, nil
		}
	}
	if err := writeRecord(base+".json", record{Fingerprint: fp}); err != nil {
		f.Close()
		return nil, nil, refuse(503, "store_unavailable", "idempotency store: %v", err)
	}
	return &durableClaim{key: key, fp: fp, lock: f, path: base + ".json"}, nil, nil
}

type durableClaim struct {
	key, fp, path string
	lock          *os.File
}

func (c *durableClaim) downstreamKey() string { return c.key }

func (c *durableClaim) complete(r result) {
	defer c.lock.Close() // closing the file drops the lock
	_ = writeRecord(c.path, record{Fingerprint: c.fp, Done: true, Reply: &r})
}

// fail gives up the claim, keeping the unfinished record: the retry with
// the same arguments takes it over and acts, with the same key downstream;
// other arguments under the key are still refused, since the failed call
// may have had its effect downstream (a lost reply).
func (c *durableClaim) fail() {
	_ = c.lock.Close() // closing the file drops the lock
}

func writeRecord(path string, rec record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// sessionCache remembers keys per MCP session, in memory: the flaw of a
// cache tied to the connection. Within a session it is correct: a retry is
// replayed, and a call whose key is in flight on the same session is told
// to retry (409). On a new session (a reconnect, a restarted agent, an
// agent that calls from several sessions at once) it charges again, and no
// key goes downstream to stop it.
type sessionCache struct {
	mu       sync.Mutex
	seen     map[string]map[string]*result // session id → key → reply
	inflight map[string]bool               // session id + "\x00" + key
}

func (s *sessionCache) begin(sessionID, key, _ string) (claim, *result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == "" {
		return &cacheClaim{s: s, session: sessionID}, nil, nil
	}
	if r := s.seen[sessionID][key]; r != nil {
		return nil, r, nil
	}
	id := sessionID + "\x00" + key
	if s.inflight[id] {
		return nil, nil, refuse(409, "in_flight", "a call with this idempotency key is still in flight on this session: retry with the same key")
	}
	if s.inflight == nil {
		s.inflight = map[string]bool{}
	}
	s.inflight[id] = true
	return &cacheClaim{s: s, session: sessionID, key: key}, nil, nil
}

type cacheClaim struct {
	s            *sessionCache
	session, key string
}

func (c *cacheClaim) downstreamKey() string { return "" }

func (c *cacheClaim) complete(r result) {
	if c.key == "" {
		return
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	delete(c.s.inflight, c.session+"\x00"+c.key)
	if c.s.seen == nil {
		c.s.seen = map[string]map[string]*result{}
	}
	if c.s.seen[c.session] == nil {
		c.s.seen[c.session] = map[string]*result{}
	}
	c.s.seen[c.session][c.key] = &r
}

func (c *cacheClaim) fail() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	delete(c.s.inflight, c.session+"\x00"+c.key)
}

// unguarded acts on every call.
type unguarded struct{}

func (unguarded) begin(string, string, string) (claim, *result, error) {
	return unguardedClaim{}, nil, nil
}

type unguardedClaim struct{}

func (unguardedClaim) downstreamKey() string { return "" }
func (unguardedClaim) complete(result)       {}
func (unguardedClaim) fail()                 {}
