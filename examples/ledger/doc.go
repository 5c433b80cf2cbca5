// Package ledger is a reference API whose requests carry nothing a caller
// could put a marker in: a ledger of transfers between accounts, in
// PostgreSQL (or SQLite), whose body holds only numbers and ids and
// rejects unknown fields, and whose idempotency key sits in a UNIQUE
// column of the transfer row itself. idemcheck can attribute its effects
// only by delta: an observer of kind count reads the number of transfers
// (or their sum, or their ids) before and after each intent, with the
// target's intents run one at a time.
//
// The API:
//
//	POST /v1/transfers  {"from": 1, "to": 2, "amount": 500}
//	                    Idempotency-Key required (400 without); ?dry_run=true
//	                    → 200 {"ok":true,"effect":"created"|"noop"|"would_create","data":{"id":7,"from":1,"to":2,"amount":500}}
//	                    400 for an unknown field or a bad amount; 422 for a key reused with another payload
//	GET  /v1/transfers?limit=N&after=ID   → {"ok":true,"data":[…]}, paginated by a Link: <…>; rel="next" header
//	GET  /v1/stats      → {"ok":true,"data":{"transfers":N,"total":SUM}}
//	GET  /healthz
//
// Only how a transfer and its key are written differs per profile
// (Profiles):
//
//   - correct: one transaction holds the transfer, its key (INSERT … ON
//     CONFLICT (idempotency_key) DO NOTHING), a fingerprint of the payload
//     and the reply; a reused key replays the stored reply, or is refused
//     (422) with another payload. Concurrent copies wait on the unique
//     index; a crash anywhere leaves all of it or none.
//   - no-fingerprint: the same, without the fingerprint: a reused key with
//     another payload replays the first transfer as if it were this one.
//   - key-after-effect: looks the key up, commits the transfer, then
//     writes the key into its row in a statement of its own (after
//     --window of other work): a crash between the two leaves a transfer
//     without its key, and the retry makes a second one; concurrent copies
//     all find no key and all transfer.
//
// Run it with Main (cmd/ledger is its program): --profile NAME --db
// postgres://…|sqlite:PATH [--listen 127.0.0.1:0] [--window 0].
package ledger
