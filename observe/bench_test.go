package observe_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// The cost an observer adds to every intent: one Observe after an attempt
// (Settle.Quiet 0: one read), on a realistic amount of data, the intent's
// own effects among many others'. PERFORMANCE.md has the figures.

// benchRows is the size of the table, the list and the file the
// benchmarks read: a run's worth of other intents' effects.
const benchRows = 10_000

// benchMarker is the i-th intent's marker; every 100th intent of the data
// has two effects.
func benchMarker(i int) string { return fmt.Sprintf("idem-%016x", i%(benchRows/2)) }

func benchSQLite(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "orders.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(b, err)
	defer db.Close()
	_, err = db.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE orders (id INTEGER PRIMARY KEY, amount INT, note TEXT); CREATE INDEX orders_note ON orders (note)`)
	require.NoError(b, err)
	tx, err := db.Begin()
	require.NoError(b, err)
	for i := range benchRows {
		_, err := tx.Exec(`INSERT INTO orders (amount, note) VALUES (?, ?)`, i, benchMarker(i))
		require.NoError(b, err)
	}
	require.NoError(b, tx.Commit())
	return "sqlite:" + path
}

// observeEach runs one Observe per iteration, each for another intent.
func observeEach(b *testing.B, o *observe.Observer, begin bool) {
	b.Helper()
	ctx := context.Background()
	ledger := fakes.NewLedger()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m := benchMarker(i)
		if begin {
			if err := o.Begin(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
		if err := o.Observe(ctx, ledger, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkObserveSQL(b *testing.B) {
	b.Run("sqlite-indexed", func(b *testing.B) {
		dsn := benchSQLite(b)
		o, err := observe.Spec{Name: "orders-db", Source: observe.SQL{DSN: dsn, Query: `SELECT id, amount FROM orders WHERE note = {{marker}}`}}.Open(context.Background(), observe.Where{})
		require.NoError(b, err)
		defer o.Close()
		observeEach(b, o, false)
	})
	b.Run("sqlite-scan", func(b *testing.B) {
		dsn := benchSQLite(b)
		o, err := observe.Spec{Name: "orders-db", Source: observe.SQL{DSN: dsn, Query: `SELECT id, amount FROM orders WHERE note LIKE '%' || {{marker}} || '%'`}}.Open(context.Background(), observe.Where{})
		require.NoError(b, err)
		defer o.Close()
		observeEach(b, o, false)
	})
	for _, tc := range []struct{ name, where string }{
		{"postgres-indexed", `note = {{marker}}`},
		{"postgres-scan", `note LIKE '%' || {{marker}} || '%'`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dsn, db := postgres(b)
			_, err := db.Exec(`CREATE TABLE orders (id SERIAL PRIMARY KEY, amount INT, note TEXT);
				INSERT INTO orders (amount, note) SELECT i, 'idem-' || lpad(to_hex(i % ` + fmt.Sprint(benchRows/2) + `), 16, '0') FROM generate_series(0, ` + fmt.Sprint(benchRows-1) + `) AS i;
				CREATE INDEX orders_note ON orders (note); ANALYZE orders`)
			require.NoError(b, err)
			o, err := observe.Spec{Name: "orders-db", Source: observe.SQL{DSN: dsn, Query: `SELECT id, amount FROM orders WHERE ` + tc.where}}.Open(context.Background(), observe.Where{})
			require.NoError(b, err)
			defer o.Close()
			observeEach(b, o, false)
		})
	}
}

// indexedAPI lists the orders of a search term from an index, a page of
// 10 at a time: what the read-back costs, not the API's own search.
type indexedAPI map[string][]map[string]any

func (a indexedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	match := a[q.Get("search")]
	page, _ := strconv.Atoi(q.Get("page"))
	from := min(max(page-1, 0)*10, len(match))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": match[from:min(from+10, len(match))]})
}

// BenchmarkObserveHTTPPaged: every intent's read-back follows its pages
// of 10: one page and the empty one after it for one object, three for a
// burst of 20.
func BenchmarkObserveHTTPPaged(b *testing.B) {
	for _, perIntent := range []int{1, 20} {
		b.Run(fmt.Sprintf("%d-objects", perIntent), func(b *testing.B) {
			api := indexedAPI{}
			for i := range benchRows {
				m := fmt.Sprintf("idem-%016x", i/perIntent)
				api[m] = append(api[m], map[string]any{"id": fmt.Sprintf("ord_%d", i), "note": "order " + m, "amount": i})
			}
			srv := httptest.NewServer(api)
			defer srv.Close()
			o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/orders?search={{marker}}", Items: "data", Pages: observe.Pages{Page: "page"}})
			require.NoError(b, err)
			defer o.Close()
			ctx := context.Background()
			ledger := fakes.NewLedger()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := o.Observe(ctx, ledger, fmt.Sprintf("idem-%016x", i%(benchRows/perIntent))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObserveFile: a knowledge graph of 1,000 entities in one JSON
// file, read whole for every intent.
func BenchmarkObserveFile(b *testing.B) {
	const entities = 1000
	items := make([]map[string]any, entities)
	for i := range items {
		items[i] = map[string]any{"type": "entity", "name": fmt.Sprintf("e%d", i), "entityType": "person",
			"observations": []string{fmt.Sprintf("met idem-%016x", i), strings.Repeat("x", 100)}}
	}
	raw, err := json.Marshal(items)
	require.NoError(b, err)
	dir := b.TempDir()
	write(b, filepath.Join(dir, "memory.json"), string(raw))
	o, err := observe.Spec{Name: "graph", Source: observe.File{Path: filepath.Join(dir, "memory.json"), ID: "name"}}.Open(context.Background(), observe.Where{})
	require.NoError(b, err)
	defer o.Close()
	b.SetBytes(int64(len(raw)))
	observeEach(b, o, false)
}

// BenchmarkObserveCount: a count by delta reads its source twice per
// intent (Begin and Observe).
func BenchmarkObserveCount(b *testing.B) {
	for _, tc := range []struct {
		name  string
		count func(dsn string) observe.Count
	}{
		{"count(*)", func(dsn string) observe.Count {
			return observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT count(*) FROM orders`}}
		}},
		{"sum", func(dsn string) observe.Count {
			return observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT coalesce(sum(amount), 0) FROM orders`}}
		}},
		{"rows", func(dsn string) observe.Count {
			return observe.Count{SQL: &observe.SQL{DSN: dsn, Query: `SELECT id FROM orders`}, Rows: true}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dsn := benchSQLite(b)
			o, err := observe.Spec{Name: "orders-count", Source: tc.count(dsn)}.Open(context.Background(), observe.Where{})
			require.NoError(b, err)
			defer o.Close()
			observeEach(b, o, true)
		})
	}
}
