// Package clidb is a reference command-line tool that keeps its effects in
// its own database (SQLite or PostgreSQL): an expense logger with the
// conventions of an agent-friendly tool (a JSON reply {ok, effect, data}
// on stdout, --idempotency-key, --dry-run, exit 0 on success and on a
// replay). Each call is a process of its own; idemcheck counts its
// expenses with a SQL observer on the expenses table.
//
//	clidb --profile NAME --db postgres://…|sqlite:PATH [--window 0] add-expense --amount N --memo TEXT --idempotency-key K [--dry-run]
//	  → {"ok":true,"effect":"created"|"noop"|"would_create","data":{"id":7,"amount":N,"memo":"…"}}
//	clidb --profile NAME --db … list-expenses --search TEXT
//
// A call without a key is refused (exit 2), a key reused with another
// payload too (exit 1, "key_mismatch"); a database that cannot be reached
// is exit 75. The profiles (Profiles) differ in how an expense and its key
// are written:
//
//   - correct: one INSERT … ON CONFLICT (idempotency_key) DO NOTHING on a
//     UNIQUE column of the expense row, with a payload fingerprint; nothing
//     inserted means the key exists, and its expense is replayed.
//   - check-then-insert: a SELECT for the key, then (after --window of
//     other work) an INSERT, with no unique constraint: a retry after the
//     first call finished is replayed, but calls that overlap (a client
//     that timed out and retried while the first still ran, a burst) all
//     find nothing and all insert.
//   - error-after-insert: as correct, but a call that logs a new expense
//     answers exit 1 ("posting_failed: please retry") once it is stored;
//     a retry with the same key is answered its success. The caller is
//     told a failure that did not happen (reply.honest).
package clidb
