package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// demoOrdersDB starts a PostgreSQL server for the orders service when the
// machine has one, and falls back to SQLite, saying so, when it has not
// (or it would not start).
func demoOrdersDB(ctx context.Context, quiet bool, stderr io.Writer) (examples.OrdersDB, func()) {
	if _, err := pgserver.Find(); err == nil && !quiet {
		// Making its data directory takes a few seconds: say so first.
		fmt.Fprintf(stderr, "idemcheck demo: starting PostgreSQL for the orders service and the payment services on it\n")
	}
	db, port, stop, err := examples.StartOrdersPostgres(ctx)
	if err != nil {
		why := err.Error()
		if !errors.Is(err, pgserver.ErrNotInstalled) {
			why = "PostgreSQL would not start: " + why
		}
		fmt.Fprintf(stderr, "idemcheck demo: %s; the orders service keeps its orders in SQLite instead\n", why)
		return examples.SQLiteOrders, func() {}
	}
	if !quiet {
		fmt.Fprintf(stderr, "idemcheck demo: the orders service keeps its orders in PostgreSQL (started on 127.0.0.1:%d for the demo, removed after)\n", port)
	}
	return db, func() {
		if err := stop(); err != nil {
			fmt.Fprintf(stderr, "idemcheck demo: stopping PostgreSQL: %v\n", err)
		}
	}
}
