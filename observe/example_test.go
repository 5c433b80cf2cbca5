package observe_test

import (
	"fmt"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// An observer is configured by the name of its source and its settings,
// as a configuration file writes them.
func ExampleRegistry_New() {
	src, err := observe.Builtin().New("sql", []byte(`{"dsn": "{{env.DATABASE_URL}}", "query": "SELECT id FROM orders WHERE note = {{marker}}"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := observe.Spec{Name: "orders-db", Kind: "order", Object: "orders", Source: src}
	fmt.Println(spec.Source.Type())
	_ = spec.Starter() // goes in harness.Spec.Observers

	_, err = observe.Builtin().New("sql", []byte(`{"dsn": "sqlite:orders.db", "query": "SELECT id FROM orders"}`))
	fmt.Println(err)
	// Output:
	// sql
	// observer source sql: query has no {{marker}}: every row it returns would be counted for every intent
}

// Two observers of the orders (a query on the table, a read-back of the
// API) saw the same order: it is counted once, with both as evidence. A
// fake's charge is its own effect.
func ExampleMerge() {
	seen := func(seq int64, observer string) fakes.Effect {
		return fakes.Effect{Seq: seq, Fake: observer, Kind: "order", ID: "ord_1", Markers: []string{"idem-00000000000000a1"},
			Detail: map[string]string{"source": "sql", "object": "orders"}}
	}
	effects := []fakes.Effect{
		seen(1, "orders-db"),
		{Seq: 2, Fake: "payments", Kind: "charge", ID: "ch_1"},
		seen(3, "orders-api"),
	}
	for _, e := range observe.Merge(effects) {
		fmt.Println(e.Seq, e.Fake, e.ID, e.Detail["evidence"])
	}
	// Output:
	// 1 orders-db ord_1 orders-db, orders-api
	// 2 payments ch_1
}
