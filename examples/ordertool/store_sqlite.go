package ordertool

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver: no cgo
)

// SQLiteFile is the sqlite store's database inside the state directory.
const SQLiteFile = "idempotency.db"

// sqliteStore is a SQLite cache read, then the work, then INSERT OR
// REPLACE with a TTL (check-then-set):
//
//	get(key): SELECT result, created_at; a row younger than the TTL is the
//	          cached result; an older one is deleted and forgotten
//	execute_once: cached → return it; else run, then set(key, result)
//	set(key, result): INSERT OR REPLACE
//
// Without --idempotency-key the key is derived from the operation and its
// inputs. It persists across process restarts, and that is all: the check
// and the set are two statements with the side effect between them, so
// concurrent calls with one key all find nothing and all act; nothing marks
// a call in progress, so a crash after the side effect leaves no row and
// the retry acts again; the key stays in the tool, so a retry after an
// ambiguous downstream failure charges again. There is no fingerprint: a
// reused key with another payload replays the first result. After the TTL a
// key acts again.
type sqliteStore struct {
	db  *sql.DB
	ttl time.Duration
}

func openSQLite(dir string, ttl time.Duration) (*sqliteStore, error) {
	dsn := "file:" + (&url.URL{Path: filepath.Join(dir, SQLiteFile)}).EscapedPath() +
		"?_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS idempotency_cache (
		key TEXT PRIMARY KEY,
		result TEXT NOT NULL,
		created_at REAL NOT NULL
	)`); err != nil {
		db.Close()
		return nil, err
	}
	return &sqliteStore{db: db, ttl: ttl}, nil
}

func (s *sqliteStore) dryRun() bool { return true }
func (s *sqliteStore) close() error { return s.db.Close() }

func now() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// get is the cache read: the cached result, or nil.
func (s *sqliteStore) get(key string) (*envelope, error) {
	var result string
	var created float64
	err := s.db.QueryRow(`SELECT result, created_at FROM idempotency_cache WHERE key = ?`, key).Scan(&result, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if now()-created < s.ttl.Seconds() {
		var env envelope
		if err := json.Unmarshal([]byte(result), &env); err != nil {
			return nil, err
		}
		return &env, nil
	}
	// Expired — delete.
	_, err = s.db.Exec(`DELETE FROM idempotency_cache WHERE key = ?`, key)
	return nil, err
}

func (s *sqliteStore) begin(req request) (claim, *envelope, error) {
	key := req.key
	if key == "" {
		key = req.derivedKey()
	}
	cached, err := s.get(key)
	if err != nil {
		return nil, nil, storeError("get", err)
	}
	if cached != nil {
		return nil, cached, nil
	}
	return &sqliteClaim{s: s, key: key}, nil, nil
}

type sqliteClaim struct {
	s   *sqliteStore
	key string
}

func (c *sqliteClaim) downstreamKey() string { return "" }

// complete is the cache write, set(key, result).
func (c *sqliteClaim) complete(reply envelope) error {
	_, err := c.s.db.Exec(`INSERT OR REPLACE INTO idempotency_cache (key, result, created_at) VALUES (?, ?, ?)`,
		c.key, string(mustJSON(reply)), now())
	return err
}

// fail stores nothing: execute_once caches only results.
func (c *sqliteClaim) fail(error) {}
