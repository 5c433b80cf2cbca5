package examples

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/examples/ledger"
	"github.com/idemcheck/idemcheck/examples/orders"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// OrdersName is the reference orders service's name under Subcommand.
const OrdersName = reference.Orders

// OrdersConfig is the HTTP adapter configuration of the orders service:
// the marker goes into the order's note, which its database keeps and its
// list endpoint searches.
func OrdersConfig(name string) httptarget.Config {
	return httptarget.Config{
		Name:    name,
		BaseURL: "http://127.0.0.1:{{port}}",
		DryRun:  &httptarget.DryRun{Query: "dry_run"},
		Operations: []httptarget.Operation{
			{
				Name: "create-order", Mutating: true, Method: "POST", Path: "/v1/orders",
				Headers: map[string]string{"Content-Type": "application/json"},
				Body:    `{"customer":"{{input.customer}}","amount":{{input.amount}},"note":"order {{marker}}"}`,
				Inputs: map[string]harness.Input{
					"customer": {Kind: "string", Prefix: "cus_", Length: 8},
					"amount":   {Kind: "int", Min: 100, Max: 99999},
				},
			},
			{Name: "list-orders", Mutating: false, Method: "GET", Path: "/v1/orders?search={{marker}}"},
		},
	}
}

// OrdersSQL is the observer that counts orders in the service's table.
func OrdersSQL(dsn string) observe.SQL {
	return observe.SQL{Name: "orders-db", Kind: "order", DSN: dsn,
		Query: `SELECT id, amount FROM orders WHERE note LIKE '%' || {{marker}} || '%'`}
}

// OrdersHTTP is the observer that counts orders through the service's own
// list endpoint, polled until the list has not changed for 20ms.
func OrdersHTTP() observe.HTTP {
	return observe.HTTP{Name: "orders-api", Kind: "order", URL: "/v1/orders?search={{marker}}", Items: "data",
		Settle: observe.Settle{Quiet: 20 * time.Millisecond}}
}

// ordersReadyTimeout bounds an orders service's start.
const ordersReadyTimeout = 30 * time.Second

// OrdersSpec is the harness spec of one orders profile on the database dsn
// (postgres://… or sqlite:PATH, which may use {{state_dir}}), started from
// exe, its effects counted by obs. No fake is involved.
func OrdersSpec(exe, name, profile, dsn string, obs harness.ObserverStarter) harness.Spec {
	launch := &httptarget.Launch{
		Command:   []string{exe, Subcommand, OrdersName, "--profile", profile, "--db", dsn, "--listen", "127.0.0.1:{{port}}"},
		ReadyPath: "/healthz",
		// It opens its whole pool of database connections before it
		// listens; on a machine that many trial hosts keep busy, a
		// PostgreSQL server is slow to start a process for each.
		ReadyTimeout: ordersReadyTimeout,
	}
	spec := httptarget.Spec(OrdersConfig(name), launch)
	spec.Observers = []harness.ObserverStarter{obs}
	return spec
}

// OrdersDB is where the demo's orders services keep their orders.
type OrdersDB struct {
	// Kind is "postgres" or "sqlite".
	Kind string
	// DSN returns the database of one orders profile, or of a ledger
	// profile as "ledger-PROFILE"; it may use {{state_dir}}.
	DSN func(profile string) string
}

// SQLiteOrders keeps each profile's orders in a SQLite file in the
// target's state directory: the demo's fallback without PostgreSQL.
var SQLiteOrders = OrdersDB{Kind: "sqlite", DSN: func(string) string { return "sqlite:{{state_dir}}/orders.db" }}

// StartOrdersPostgres starts a PostgreSQL server for the demo (see
// internal/pgserver) with a database per orders profile; stop stops it.
// It fails, wrapping pgserver.ErrNotInstalled, when PostgreSQL is absent.
func StartOrdersPostgres(ctx context.Context) (db OrdersDB, port int, stop func() error, err error) {
	// The server the dependencies' throwaway databases are made on: held
	// for the demo, it serves the payment services' too.
	s, release, err := launch.SharedPostgres(ctx)
	if err != nil {
		return OrdersDB{}, 0, nil, err
	}
	// One database per profile, made side by side: each takes a fraction
	// of a second of file copying in the server.
	names := map[string]string{}
	for _, p := range orders.Profiles {
		names[p] = "demo_" + strings.ReplaceAll(p, "-", "_")
	}
	for _, p := range ledger.Profiles {
		names[LedgerName+"-"+p] = "demo_ledger_" + strings.ReplaceAll(p, "-", "_")
	}
	dsns := make(map[string]string, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for key, name := range names {
		wg.Go(func() {
			dsn, err := s.CreateDatabase(ctx, name)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			dsns[key] = dsn
		})
	}
	wg.Wait()
	if firstErr != nil {
		_ = release()
		return OrdersDB{}, 0, nil, firstErr
	}
	return OrdersDB{Kind: "postgres", DSN: func(p string) string { return dsns[p] }}, s.Port, release, nil
}

// OrdersDemo returns the orders service's profiles as demo targets, their
// orders kept in db and counted there by a SQL observer.
func OrdersDemo(exe string, db OrdersDB) []DemoTarget {
	var out []DemoTarget
	for _, p := range orders.Profiles {
		info, _ := orders.Describe(p)
		dsn := db.DSN(p)
		spec := OrdersSpec(exe, "orders-"+p, p, dsn, observe.SQLStarter(OrdersSQL(dsn)))
		out = append(out, DemoTarget{Spec: spec, Built: info.Score, Flaw: info.Flaw})
	}
	return out
}
