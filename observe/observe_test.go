package observe_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

const (
	m1 = "idem-00000000000000a1"
	m2 = "idem-00000000000000a2"
)

func sqliteDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orders.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, amount INT, note TEXT)`)
	require.NoError(t, err)
	return "sqlite:" + path, db
}

func TestSQLObserverRecordsEachRowOnce(t *testing.T) {
	dsn, db := sqliteDB(t)
	ctx := context.Background()
	o, err := observe.OpenSQL(ctx, observe.SQL{Name: "orders-db", Kind: "order", DSN: dsn,
		Query: `SELECT id, amount FROM orders WHERE note LIKE '%' || $marker || '%'`})
	require.NoError(t, err)
	defer o.Close()
	ledger := fakes.NewLedger()

	require.NoError(t, o.Observe(ctx, ledger, m1))
	assert.Empty(t, ledger.Effects(), "no row yet")

	_, err = db.Exec(`INSERT INTO orders (amount, note) VALUES (100, ?), (200, ?)`, "order "+m1, "order "+m2)
	require.NoError(t, err)
	require.NoError(t, o.Observe(ctx, ledger, m1))
	require.NoError(t, o.Observe(ctx, ledger, m1))
	effs := ledger.Effects()
	require.Len(t, effs, 1, "a row is one effect, however often it is seen; the other marker's row is not this intent's")
	assert.Equal(t, fakes.Effect{Seq: 1, Fake: "orders-db", Kind: "order", ID: "1", Markers: []string{m1}, At: effs[0].At,
		Detail: map[string]string{"source": "sql", "object": "orders-db", "amount": "100"}, Observed: true}, effs[0])

	_, err = db.Exec(`INSERT INTO orders (amount, note) VALUES (100, ?)`, "again "+m1)
	require.NoError(t, err)
	require.NoError(t, o.Observe(ctx, ledger, m1))
	assert.Len(t, ledger.ByMarker(m1), 2, "a second row for the marker is a second effect")

	fresh := fakes.NewLedger()
	require.NoError(t, o.Observe(ctx, fresh, m1))
	assert.Len(t, fresh.Effects(), 2, "what was recorded is read from the ledger: a fresh ledger gets every row")
}

func TestSQLObserverMarkerIsBoundNotSpliced(t *testing.T) {
	dsn, db := sqliteDB(t)
	_, err := db.Exec(`INSERT INTO orders (amount, note) VALUES (1, 'x')`)
	require.NoError(t, err)
	o, err := observe.OpenSQL(context.Background(), observe.SQL{DSN: dsn, Query: `SELECT id FROM orders WHERE note = {{marker}}`})
	require.NoError(t, err)
	defer o.Close()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, "x' OR '1'='1"))
	assert.Empty(t, ledger.Effects())
	assert.Equal(t, "sql", o.Name(), "default name")
}

func TestSQLObserverErrors(t *testing.T) {
	dsn, _ := sqliteDB(t)
	ctx := context.Background()
	for _, tc := range []struct {
		why  string
		sql  observe.SQL
		want string
	}{
		{"a query without the marker would count every row for every intent", observe.SQL{DSN: dsn, Query: `SELECT id FROM orders`}, "no {{marker}}"},
		{"an unknown database", observe.SQL{DSN: "mysql://u:secret@h/db", Query: `SELECT {{marker}}`}, `unsupported database "mysql://u:***@h/db"`},
		{"a server that does not answer", observe.SQL{DSN: "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", Query: `SELECT {{marker}}`}, "cannot reach the database postgres://u:***@127.0.0.1:1/db"},
	} {
		_, err := observe.OpenSQL(ctx, tc.sql)
		require.Error(t, err, tc.why)
		assert.Contains(t, err.Error(), tc.want, tc.why)
		assert.NotContains(t, err.Error(), "secret", "a password is never printed")
	}
	o, err := observe.OpenSQL(ctx, observe.SQL{DSN: dsn, Query: `SELECT id FROM nowhere WHERE note = {{marker}}`,
		Settle: failing})
	require.NoError(t, err)
	defer o.Close()
	err = o.Observe(ctx, fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer sql (sql): query")
	assert.Contains(t, err.Error(), "nowhere")
}

// listServer serves {"data":[…]} from items, which a test changes between
// reads; reads counts the requests.
type listServer struct {
	mu     sync.Mutex
	reads  int
	script func(read int) []map[string]any
	status int
	ua     string
}

func (s *listServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reads++
	n := s.reads
	s.ua = r.UserAgent()
	status := s.status
	s.mu.Unlock()
	if status != 0 {
		http.Error(w, "unavailable", status)
		return
	}
	items := s.script(n)
	q := r.URL.Query().Get("search")
	var out []map[string]any
	for _, it := range items {
		if q == "" || strings.Contains(it["note"].(string), q) {
			out = append(out, it)
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": out})
}

func TestHTTPObserverPollsUntilSettled(t *testing.T) {
	// The order appears on the third read, a duplicate on the fifth: an
	// API that catches up asynchronously.
	ls := &listServer{script: func(read int) []map[string]any {
		var items []map[string]any
		if read >= 3 {
			items = append(items, map[string]any{"id": "ord_1", "note": "order " + m1})
		}
		if read >= 5 {
			items = append(items, map[string]any{"id": "ord_2", "note": "order " + m1})
		}
		return append(items, map[string]any{"id": "ord_9", "note": "order " + m2})
	}}
	srv := httptest.NewServer(ls)
	defer srv.Close()
	o, err := observe.OpenHTTP(srv.URL, observe.HTTP{Name: "orders-api", Kind: "order", URL: "/v1/orders?search={{marker}}", Items: "data",
		// Quiet outlasts any pause between two reads of a loaded machine:
		// the list must change between the second read and the fifth.
		Settle: observe.Settle{Interval: time.Millisecond, Quiet: time.Second, Within: 10 * time.Second}})
	require.NoError(t, err)
	defer o.Close()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	effs := ledger.Effects()
	require.Len(t, effs, 2, "both orders, once the list stopped changing")
	assert.Equal(t, []string{"ord_1", "ord_2"}, []string{effs[0].ID, effs[1].ID})
	assert.Equal(t, "http", effs[0].Detail["source"])
	assert.Equal(t, "orders-api", effs[0].Fake)
	assert.Contains(t, ls.ua, "idemcheck")
}

func TestHTTPObserverFiltersByMarkerWithoutSearch(t *testing.T) {
	ls := &listServer{script: func(int) []map[string]any {
		return []map[string]any{{"id": 1, "note": "order " + m1}, {"id": 2, "note": "order " + m2}}
	}}
	srv := httptest.NewServer(ls)
	defer srv.Close()
	o, err := observe.OpenHTTP("", observe.HTTP{URL: srv.URL + "/v1/orders", Items: "data"})
	require.NoError(t, err)
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m2))
	require.Len(t, ledger.Effects(), 1, "the API lists everything; only the object holding the marker counts")
	assert.Equal(t, "2", ledger.Effects()[0].ID)
}

func TestHTTPObserverErrors(t *testing.T) {
	ls := &listServer{status: http.StatusServiceUnavailable, script: func(int) []map[string]any { return nil }}
	srv := httptest.NewServer(ls)
	defer srv.Close()
	o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/v1/orders?search={{marker}}", Items: "data",
		Settle: failing})
	require.NoError(t, err)
	err = o.Observe(context.Background(), fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "answered 503")
	ls.mu.Lock()
	assert.Greater(t, ls.reads, 1, "a failing read is tried again within the bound")
	ls.mu.Unlock()

	_, err = observe.OpenHTTP("", observe.HTTP{URL: "/v1/orders"})
	assert.ErrorContains(t, err, "relative but the target has no URL")

	ok := &listServer{script: func(int) []map[string]any { return []map[string]any{{"note": m1}} }}
	srv2 := httptest.NewServer(ok)
	defer srv2.Close()
	o2, err := observe.OpenHTTP(srv2.URL, observe.HTTP{URL: "/?search={{marker}}", Items: "data", Settle: failing})
	require.NoError(t, err)
	assert.ErrorContains(t, o2.Observe(context.Background(), fakes.NewLedger(), m1), `object 0 has no "id"`)
}

func TestLookup(t *testing.T) {
	var doc any
	require.NoError(t, json.Unmarshal([]byte(`{"data":{"items":[{"id":"a"},{"id":"b"}]}}`), &doc))
	v, ok := observe.Lookup(doc, "data.items.1.id")
	assert.True(t, ok)
	assert.Equal(t, "b", v)
	_, ok = observe.Lookup(doc, "data.items.2")
	assert.False(t, ok)
	_, ok = observe.Lookup(doc, "data.nope")
	assert.False(t, ok)
	v, ok = observe.Lookup(doc, "")
	assert.True(t, ok)
	assert.Equal(t, doc, v)
}
