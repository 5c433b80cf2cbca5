// Package orders is a reference API that keeps its side effects in its own
// real database: an orders service whose only effect is a row in an orders
// table, in PostgreSQL (through pgx) or, as a fallback, SQLite. Nothing
// reaches a fake; idemcheck counts its effects through an effect observer,
// either a SQL query on the table (observe: sql) or a read-back of its own
// list endpoint (observe: http).
//
// The API:
//
//	POST /v1/orders            {"customer":"cus_1","amount":1200,"note":"…"}
//	                           Idempotency-Key required (400 without); ?dry_run=true
//	                           → 200 {"ok":true,"effect":"created"|"noop"|"would_create","data":{"id":"ord_1",…}}
//	                           422 for a key reused with another payload
//	GET  /v1/orders?search=T   → 200 {"ok":true,"effect":"noop","data":[{"id":"ord_1",…}, …]} (notes containing T)
//	GET  /healthz
//
// Only the way an order is inserted differs per profile (Profiles):
//
//   - correct: a unique index on the idempotency key and one statement,
//     INSERT … ON CONFLICT (idempotency_key) DO NOTHING RETURNING id; when
//     nothing was inserted, the existing order is replayed (or 422 for
//     another payload). The database serialises same-key writers, and an
//     order and its key are one row, committed together or not at all, so
//     a crash can neither lose nor double it.
//   - no-unique: the same INSERT … ON CONFLICT DO NOTHING, but the table
//     has no unique constraint on the key, so nothing ever conflicts: every
//     retry inserts another order.
//   - check-then-insert: looks the key up, then inserts when it found
//     nothing, in two statements with no unique constraint: retries one at a
//     time are replayed, but concurrent copies of a request all find
//     nothing and all insert.
package orders
