// Package ordertool is idemcheck's reference command-line tool: a small
// order tool that charges a customer through a payments API, sends email
// through an email API and shows orders, with the conventions of an
// agent-friendly tool (a JSON reply {ok, effect, data} on stdout, an
// effect field, --idempotency-key, --dry-run, exit 0 on success and on a
// no-op replay).
//
// Its idempotency store is chosen with --store, and each is built the way
// such stores are commonly written, flaws included:
//
//	none     no store: every call acts (the rubric's score 0)
//	jsonl    an append-only JSONL key store: is_processed, then
//	         mark_in_progress, work, mark_complete (or mark_failed),
//	         as a request-id store is often written. Not atomic across
//	         processes; in_progress and failed records are retried, so a
//	         crash after the side effect re-runs it; the key is not passed
//	         downstream.
//	sqlite   a SQLite cache read, then the work, then INSERT OR REPLACE
//	         (check-then-set, with a TTL); without a key one is derived
//	         from the operation and its inputs. Nothing marks a call in
//	         progress and the key stays in the tool.
//	correct  an atomic claim per key (an flock'd lock file per key, which
//	         the kernel releases when its holder dies: a lease that ends
//	         with the process), a fingerprint of the inputs, the stored
//	         reply replayed, and the key passed downstream as the
//	         Idempotency-Key, so that re-running a claim whose holder died
//	         is safe. A mutating call without a key is refused (exit 2).
//
// Main is the whole program; examples/cli/ordertool is its main package,
// and idemcheck runs it as `idemcheck __example ordertool …`.
package ordertool
