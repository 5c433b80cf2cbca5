package observe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// Two observers of one table (a query on it, a read-back of the API that
// lists it) count each order once, with both as evidence; declared as
// different objects they add up, as observers of different things should.
func TestMergeCountsAnObjectTwoObserversSawOnce(t *testing.T) {
	dsn, db := sqliteDB(t)
	_, err := db.Exec(`INSERT INTO orders (amount, note) VALUES (100, ?), (100, ?), (300, ?)`, "order "+m1, "retry "+m1, "order "+m2)
	require.NoError(t, err)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.Query(`SELECT 'ord_' || id, note FROM orders WHERE note LIKE '%' || ? || '%'`, r.URL.Query().Get("search"))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer rows.Close()
		var out []map[string]string
		for rows.Next() {
			var id, note string
			_ = rows.Scan(&id, &note)
			out = append(out, map[string]string{"id": id, "note": note})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": out})
	}))
	defer api.Close()

	observers := func(object string) []*observe.Observer {
		dbObs := open(t, observe.Spec{Name: "orders-db", Kind: "order", Object: object, Settle: quick,
			Source: observe.SQL{DSN: dsn, Query: `SELECT 'ord_' || id, amount FROM orders WHERE note LIKE '%' || {{marker}} || '%'`}}, "")
		apiObs := open(t, observe.Spec{Name: "orders-api", Kind: "order", Object: object, Settle: quick,
			Source: observe.HTTP{URL: api.URL + "/v1/orders?search={{marker}}", Items: "data"}}, "")
		return []*observe.Observer{dbObs, apiObs}
	}
	record := func(obs []*observe.Observer) *fakes.Ledger {
		ledger := fakes.NewLedger()
		ledger.Record(fakes.Effect{Fake: "payments", Kind: "charge", ID: "ch_1", Markers: []string{m1}})
		for _, o := range obs {
			require.NoError(t, o.Observe(context.Background(), ledger, m1))
		}
		return ledger
	}

	same := record(observers("orders"))
	require.Len(t, same.Effects(), 5, "the charge, and each order twice in the ledger")
	merged := observe.Merge(same.Effects())
	require.Len(t, merged, 3, "the charge and two orders: the duplicate order is still a duplicate")
	assert.Equal(t, "payments", merged[0].Fake, "a fake's effect passes unchanged")
	for _, e := range merged[1:] {
		assert.Equal(t, "orders-db, orders-api", e.Detail[observe.DetailEvidence])
		assert.Equal(t, "100", e.Detail["amount"], "the first observer's evidence is kept")
	}
	assert.Equal(t, []string{"ord_1", "ord_2"}, []string{merged[1].ID, merged[2].ID})
	assert.Empty(t, same.Effects()[1].Detail[observe.DetailEvidence], "Merge changes a copy, not the ledger")

	apart := record(observers(""))
	assert.Len(t, observe.Merge(apart.Effects()), 5, "observers of different objects (the default: each its own) add up")
}

func TestIdentity(t *testing.T) {
	object, id, ok := observe.Identity(fakes.Effect{ID: "7", Detail: map[string]string{"source": "sql", "object": "orders"}})
	assert.True(t, ok)
	assert.Equal(t, []string{"orders", "7"}, []string{object, id})
	_, _, ok = observe.Identity(fakes.Effect{ID: "ch_1", Detail: map[string]string{"amount": "5"}})
	assert.False(t, ok, "a fake's effect has no observed identity")
}

// Two observers of one object that name what they saw of an intent
// differently (a query's bare id, the API's "ord_" id) cannot be merged:
// Disagreement says so, naming both and their ids. Observers that agree,
// observers of different objects, and one that saw nothing are quiet.
func TestDisagreementOfObserversOfOneObject(t *testing.T) {
	seen := func(observer, object, id, marker string) fakes.Effect {
		return fakes.Effect{Fake: observer, ID: id, Markers: []string{marker},
			Detail: map[string]string{observe.DetailSource: "sql", observe.DetailObject: object}}
	}
	err := observe.Disagreement([]fakes.Effect{
		seen("orders-db", "orders", "17", m1), seen("orders-api", "orders", "ord_17", m1),
	}, m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observers orders-api and orders-db both observe orders, but name what they saw of one intent differently (orders-api: ord_17; orders-db: 17)")

	for why, effects := range map[string][]fakes.Effect{
		"the same ids":          {seen("orders-db", "orders", "ord_17", m1), seen("orders-api", "orders", "ord_17", m1)},
		"one of them in common": {seen("orders-db", "orders", "ord_17", m1), seen("orders-db", "orders", "ord_18", m1), seen("orders-api", "orders", "ord_18", m1)},
		"different objects":     {seen("orders-db", "orders-db", "17", m1), seen("orders-api", "orders-api", "ord_17", m1)},
		"one saw nothing of it": {seen("orders-db", "orders", "17", m1), seen("orders-api", "orders", "ord_18", m2)},
		"a fake's effect":       {seen("orders-db", "orders", "17", m1), {Fake: "payments", ID: "ch_1", Markers: []string{m1}}},
	} {
		assert.NoError(t, observe.Disagreement(effects, m1), why)
	}
}
