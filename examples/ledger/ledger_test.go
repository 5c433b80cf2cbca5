package ledger_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/internal/reftest"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// world is a ledger profile running as a real process on a real
// database, and the observers that count its transfers: by delta, since
// its requests carry nothing a marker could ride in.
type world struct {
	t      *testing.T
	srv    *reftest.Server
	dsn    string
	obs    []*observe.Observer
	ledger *fakes.Ledger
	n      int
}

func newWorld(t *testing.T, profile, dsn string, extra ...string) *world {
	t.Helper()
	w := &world{t: t, dsn: dsn, ledger: fakes.NewLedger()}
	w.srv = reftest.StartHTTP(t, append([]string{"--profile", profile, "--db", dsn}, extra...)...)
	settle := observe.Settle{Interval: 5 * time.Millisecond, Within: 20 * time.Second}
	for _, spec := range []observe.Spec{
		// The table's rows by their own ids, and the API's paginated list
		// of the same transfers: one object, merged.
		{Name: "ledger-db", Object: "transfers", Settle: settle, Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM transfers`}, Rows: true}},
		{Name: "ledger-api", Object: "transfers", Settle: settle, Source: observe.Count{HTTP: &observe.HTTP{URL: w.srv.URL + "/v1/transfers?limit=10", Items: "data", Pages: observe.Pages{Link: true}}}},
		// What the transfers moved, in units of the amount each intent posts.
		{Name: "ledger-sum", Object: "amounts", Settle: settle, Source: observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT coalesce(sum(amount), 0) FROM transfers`}, Unit: 500}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		o, err := spec.Open(ctx, observe.Where{})
		cancel()
		require.NoError(t, err)
		require.True(t, o.Serial(), "a count needs the intents one at a time")
		t.Cleanup(func() { o.Close() })
		w.obs = append(w.obs, o)
	}
	return w
}

// answer is a reply of the ledger.
type answer struct {
	Status int
	OK     bool            `json:"ok"`
	Effect string          `json:"effect"`
	Data   ledger.Transfer `json:"data"`
	Error  string          `json:"error"`
}

func (w *world) post(key, body string, query ...string) answer {
	w.t.Helper()
	u := w.srv.URL + "/v1/transfers"
	if len(query) > 0 {
		u += "?" + query[0]
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader([]byte(body)))
	require.NoError(w.t, err)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{Status: resp.StatusCode}
	require.NoError(w.t, json.Unmarshal(raw, &a), "%s", raw)
	return a
}

// intent runs one intent (its attempts in do) between the observers'
// reading before and after, and returns what each saw, merged: the
// effects of the intent, by observed identity.
func (w *world) intent(do func()) (transfers, amounts int) {
	w.t.Helper()
	w.n++
	marker := fmt.Sprintf("idem-%016x", w.n)
	ctx := context.Background()
	for _, o := range w.obs {
		require.NoError(w.t, o.Begin(ctx, marker))
	}
	do()
	for _, o := range w.obs {
		require.NoError(w.t, o.Observe(ctx, w.ledger, marker))
	}
	for _, e := range observe.Merge(w.ledger.ByMarker(marker)) {
		if e.Fake == "ledger-sum" {
			amounts++
			continue
		}
		transfers++
		assert.Equal(w.t, "ledger-db, ledger-api", e.Detail[observe.DetailEvidence], "the table and the API list the same transfer")
		assert.Equal(w.t, observe.ByDelta, e.Detail[observe.DetailAttribution])
	}
	return transfers, amounts
}

const payload = `{"from": 1, "to": 2, "amount": 500}`

// burst sends n copies of one request at once.
func (w *world) burst(n int, key string) []answer {
	return w.burstWhile(n, key, func() {})
}

// burstWhile sends n copies of one request at once and runs during while
// they are in flight.
func (w *world) burstWhile(n int, key string, during func()) []answer {
	out := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = w.post(key, payload)
		}()
	}
	during()
	wg.Wait()
	return out
}

func databases(t *testing.T) map[string]func(*testing.T) string {
	return map[string]func(*testing.T) string{
		"postgres": func(t *testing.T) string { return reftest.Postgres(t) },
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "ledger.db") },
	}
}

// correct: a retry, a burst of copies and a reused key each leave one
// transfer or none; what is not a transfer is refused.
func TestCorrect(t *testing.T) {
	t.Parallel()
	for name, db := range databases(t) {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, "correct", db(t))
			var first answer
			n, sum := w.intent(func() {
				first = w.post("k1", payload)
				again := w.post("k1", payload)
				assert.Equal(t, "noop", again.Effect)
				assert.Equal(t, first.Data, again.Data, "the stored reply")
			})
			assert.Equal(t, "created", first.Effect)
			assert.Equal(t, [2]int{1, 1}, [2]int{n, sum}, "one transfer, one amount")

			n, _ = w.intent(func() {
				created := 0
				for _, a := range w.burst(10, "k2") {
					assert.Equal(t, http.StatusOK, a.Status, "%+v", a)
					if a.Effect == "created" {
						created++
					}
				}
				assert.Equal(t, 1, created)
			})
			assert.Equal(t, 1, n, "a burst of ten copies: one transfer")

			n, _ = w.intent(func() {
				a := w.post("k1", `{"from": 1, "to": 2, "amount": 900}`)
				assert.Equal(t, http.StatusUnprocessableEntity, a.Status, "a reused key with another payload is refused")
				assert.Equal(t, http.StatusBadRequest, w.post("", payload).Status, "no key")
				assert.Equal(t, http.StatusBadRequest, w.post("k3", `{"from": 1, "to": 2, "amount": 500, "memo": "x"}`).Status, "an unknown field")
				assert.Equal(t, "would_create", w.post("k4", payload, "dry_run=true").Effect)
			})
			assert.Zero(t, n)
		})
	}
}

// no-fingerprint: a reused key with another payload is answered 200 with
// the first transfer, as if it were this one; no second transfer.
func TestNoFingerprintReplaysAnotherPayload(t *testing.T) {
	w := newWorld(t, "no-fingerprint", reftest.Postgres(t))
	var first answer
	w.intent(func() { first = w.post("k1", payload) })
	n, _ := w.intent(func() {
		a := w.post("k1", `{"from": 1, "to": 3, "amount": 900}`)
		assert.Equal(t, http.StatusOK, a.Status, "the flaw: not refused")
		assert.Equal(t, first.Data, a.Data, "the first transfer, answered for the second payload")
	})
	assert.Zero(t, n, "nothing was transferred to account 3")
}

// key-after-effect: concurrent copies all find no key and all transfer;
// correct, on the same database, makes one. On PostgreSQL the test holds
// the copies at their INSERT (a table lock that lets their key lookups
// through) until all ten have looked and are waiting there, so every
// copy transfers whatever the machine's speed; on SQLite, whose waiters
// cannot be seen, the copies race the profile's window.
func TestKeyAfterEffectDuplicatesABurst(t *testing.T) {
	for name, db := range databases(t) {
		t.Run(name, func(t *testing.T) {
			dsn := db(t)
			const copies = 10
			flawed := newWorld(t, "key-after-effect", dsn, "--window", "200ms")
			var answers []answer
			n, sum := flawed.intent(func() {
				if name == "postgres" {
					release := holdInserts(t, dsn)
					answers = flawed.burstWhile(copies, "k1", func() { release(copies) })
					return
				}
				answers = flawed.burst(copies, "k1")
			})
			for _, a := range answers {
				assert.Equal(t, http.StatusOK, a.Status, "%+v", a)
			}
			if name == "postgres" {
				assert.Equal(t, copies, n, "every copy that found no key transferred")
			} else {
				assert.Greater(t, n, 1, "duplicated transfers")
			}
			assert.Equal(t, n, sum, "each moved the amount again")
			n, _ = flawed.intent(func() { flawed.post("k1", payload) })
			assert.Zero(t, n, "once the key is written, a retry replays")
		})
	}
}

// holdInserts locks the transfers table against inserts (reads pass) in
// a transaction of the test's own, and returns release: it waits until n
// inserts are waiting on that lock, then commits, letting them through.
func holdInserts(t *testing.T, dsn string) (release func(n int)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `LOCK TABLE transfers IN SHARE ROW EXCLUSIVE MODE`)
	require.NoError(t, err)
	return func(n int) {
		defer func() { _ = tx.Rollback() }()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var waiting int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO transfers%'`).Scan(&waiting))
			if waiting >= n {
				break
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				t.Fatalf("%d of %d inserts reached the lock", waiting, n)
			}
		}
		require.NoError(t, tx.Commit())
	}
}

// A crash at the profile's window, then the client's retry: the transfer
// committed without its key is made again by key-after-effect; correct's
// transaction dies with the process and the retry makes the one transfer.
func TestCrashAtTheWindow(t *testing.T) {
	for _, tc := range []struct {
		profile string
		want    int
	}{{"key-after-effect", 2}, {"correct", 1}} {
		t.Run(tc.profile, func(t *testing.T) {
			w := newWorld(t, tc.profile, reftest.Postgres(t), "--window", "1m")
			n, _ := w.intent(func() {
				lost := make(chan error, 1)
				go func() {
					req, _ := http.NewRequest(http.MethodPost, w.srv.URL+"/v1/transfers", bytes.NewReader([]byte(payload)))
					req.Header.Set("Idempotency-Key", "k1")
					resp, err := http.DefaultClient.Do(req)
					if err == nil {
						resp.Body.Close()
					}
					lost <- err
				}()
				w.srv.Await(t, "window:", 30*time.Second)
				w.srv.Kill(t)
				require.Error(t, <-lost, "the client never got its reply")
				// Restarted where it listened, without the long window.
				w.srv = reftest.StartHTTPAt(t, w.srv.Addr, "--profile", tc.profile, "--db", w.dsn)
				a := w.post("k1", payload)
				require.Equal(t, http.StatusOK, a.Status, "%+v", a)
			})
			assert.Equal(t, tc.want, n)
		})
	}
}
