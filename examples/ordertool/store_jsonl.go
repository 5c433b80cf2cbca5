package ordertool

import (
	"encoding/json"
	"path/filepath"
	"time"
)

// JSONLFile is the jsonl store's file inside the state directory.
const JSONLFile = "idempotency-keys.jsonl"

// The states of the jsonl store's records.
const (
	jsonlInProgress = "in_progress"
	jsonlComplete   = "complete"
	jsonlFailed     = "failed"
)

// jsonlRecord is one line of the jsonl store, keyed on a request id:
//
//	{"id": "req-001", "state": "complete", "result": {...}, "ts": 1748107200}
//	{"id": "req-002", "state": "in_progress", "ts": 1748107201}
//	{"id": "req-003", "state": "failed", "error": "timeout", "ts": 1748107202}
type jsonlRecord struct {
	ID     string          `json:"id"`
	State  string          `json:"state"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	TS     float64         `json:"ts"`
}

// jsonlStore is a JSONL key store checked with is_processed, then marked
// in progress: the file is loaded into a cache once, when the process
// starts; is_processed reads the cache; mark_in_progress, mark_complete
// and mark_failed append a line. Its flaws are the ones such a store has:
//
//   - The mark_in_progress → mark_complete sequence is not atomic across
//     processes: two processes with the same key both find it not
//     complete, and both act.
//   - An in_progress record is retried, since its writer may have
//     crashed mid-run: a crash after the side effect leaves in_progress,
//     and the retry acts again.
//   - The store prevents duplicate runs of the tool, not duplicate calls
//     downstream: the key is not passed downstream, so a retry after an
//     ambiguous downstream failure charges again.
//
// Without a key there is no request id to look up, and the call acts
// unguarded. The store has no fingerprint: a reused key with another
// payload replays the first result.
type jsonlStore struct {
	path  string
	cache map[string]jsonlRecord
}

func openJSONL(dir string) (*jsonlStore, error) {
	s := &jsonlStore{path: filepath.Join(dir, JSONLFile), cache: map[string]jsonlRecord{}}
	lines, err := readLines(s.path)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		var rec jsonlRecord
		if json.Unmarshal(l, &rec) == nil && rec.ID != "" {
			s.cache[rec.ID] = rec
		}
	}
	return s, nil
}

func (s *jsonlStore) dryRun() bool { return true }
func (s *jsonlStore) close() error { return nil }

// isProcessed is the store's is_processed check: only "complete" counts.
func (s *jsonlStore) isProcessed(id string) bool {
	rec, ok := s.cache[id]
	return ok && rec.State == jsonlComplete
}

func (s *jsonlStore) write(rec jsonlRecord) error {
	rec.TS = float64(time.Now().UnixNano()) / 1e9
	if err := appendLine(s.path, rec); err != nil {
		return err
	}
	s.cache[rec.ID] = rec
	return nil
}

func (s *jsonlStore) begin(req request) (claim, *envelope, error) {
	if req.key == "" {
		return unguarded{}, nil, nil
	}
	if s.isProcessed(req.key) {
		var env envelope
		if err := json.Unmarshal(s.cache[req.key].Result, &env); err != nil {
			return nil, nil, storeError("read the stored result", err)
		}
		return nil, &env, nil
	}
	if err := s.write(jsonlRecord{ID: req.key, State: jsonlInProgress}); err != nil {
		return nil, nil, storeError("mark_in_progress", err)
	}
	return &jsonlClaim{s: s, id: req.key}, nil, nil
}

type jsonlClaim struct {
	s  *jsonlStore
	id string
}

func (c *jsonlClaim) downstreamKey() string { return "" }

func (c *jsonlClaim) complete(reply envelope) error {
	return c.s.write(jsonlRecord{ID: c.id, State: jsonlComplete, Result: mustJSON(reply)})
}

func (c *jsonlClaim) fail(err error) {
	_ = c.s.write(jsonlRecord{ID: c.id, State: jsonlFailed, Error: err.Error()})
}
