package consumers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// fileSet keeps the set in a directory that survives restarts: one file
// per event id (named by its hash), created and fsynced before mark
// returns.
type fileSet struct{ dir string }

func openFileSet(state string) (*fileSet, error) {
	dir := filepath.Join(state, "processed")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &fileSet{dir: dir}, nil
}

func (s *fileSet) path(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16]))
}

func (s *fileSet) done(id string) (bool, error) {
	switch _, err := os.Stat(s.path(id)); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

func (s *fileSet) mark(id string) error {
	f, err := os.OpenFile(s.path(id), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(id)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	d, err := os.Open(s.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // some file systems cannot sync a directory
	return nil
}

// memorySet keeps the set in memory: it dies with the process and is not
// shared with the group's other members.
type memorySet struct {
	mu       sync.Mutex
	ids      map[string]bool
	inFlight map[string]bool
}

func newMemorySet() *memorySet {
	return &memorySet{ids: map[string]bool{}, inFlight: map[string]bool{}}
}

func (s *memorySet) mark(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids[id] = true
	delete(s.inFlight, id)
	return nil
}

// claim takes id for processing within this process: false when it is
// done or being processed.
func (s *memorySet) claim(id string) (ok, isDone bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return false, true
	}
	if s.inFlight[id] {
		return false, false
	}
	s.inFlight[id] = true
	return true, false
}

// release gives up a claim.
func (s *memorySet) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inFlight, id)
}

// marks keeps a high-water mark per entity in a directory that survives
// restarts: one file per entity (named by its hash) holding the highest
// sequence number processed.
type marks struct {
	dir string
	mu  sync.Mutex
}

func openMarks(state string) (*marks, error) {
	dir := filepath.Join(state, "high-water")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &marks{dir: dir}, nil
}

func (m *marks) path(entity string) string {
	sum := sha256.Sum256([]byte(entity))
	return filepath.Join(m.dir, hex.EncodeToString(sum[:16]))
}

// get returns entity's mark, 0 if it has none.
func (m *marks) get(entity string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	raw, err := os.ReadFile(m.path(entity))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
}

// raise sets entity's mark to seq unless it is higher already; it
// writes a new file and renames it over the old, so that a crash leaves
// one or the other.
func (m *marks) raise(entity string, seq int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.path(entity)
	if raw, err := os.ReadFile(p); err == nil {
		if cur, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil && cur >= seq {
			return nil
		}
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(seq, 10)), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
