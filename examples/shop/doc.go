// Package shop is idemcheck's reference HTTP target: a small shop that
// sells orders and subscriptions and charges each one on the payments fake.
// Its idempotency layer is a pluggable strategy (a guard, one per file), and
// each profile plants exactly one known flaw, or none. idemcheck's own tests
// start the profiles as real processes (examples/http/<profile>) and assert
// that each one gets the score it is built for: a harness that cannot tell
// these apart is broken.
//
// # API
//
//	POST /orders          {"customer":"cus_1","amount":1234,"memo":"…"}  → one charge of amount
//	POST /subscriptions   {"customer":"cus_1","plan":"basic"|"pro","memo":"…"} → one charge (900 or 2900)
//	GET  /orders?customer=X&trace=T  → {"ok":true,"effect":"noop","data":{"orders":[…]}}; safe
//	GET  /healthz         → 200
//
// A created resource answers 200
// {"ok":true,"effect":"created","data":{"id":"ord_000001","charge":"ch_…",…}};
// ids are sequential (a durable shop continues after the ids in its key
// store). The memo is sent to payments verbatim as the charge description:
// it carries the harness's marker. With the query parameter dry_run=true a
// POST answers "effect":"would_create" with what it would create (no id),
// charges nothing and leaves the key unused. Validation errors answer 400
// {"ok":false,"error":"…"}; a failed or unreachable payments service (5xx,
// 409, 429, transport error) answers 502 {"ok":false,"error":"payments: …"};
// a definitive refusal by payments (another 4xx) answers 402 and is stored
// like a success. If the durable key store cannot be written the shop
// answers 503 and executes nothing.
//
// # State
//
// With --state DIR (Options.StateDir; the harness passes {{state_dir}}, a
// directory that survives restarts) the durable profiles keep their key
// store in DIR/idempotency-keys.jsonl: an append-only JSONL file, one
// record per line ({"key","state":"in_progress"|"complete"|"released",
// "op","fingerprint","boot","status","reply","at"}), each written with one
// write and fsynced before the shop acts on it, and loaded at start (a
// torn last line, left by a kill in the middle of a write, is dropped).
// Every process start has a random boot id, stored in its in_progress
// records. Without --state every profile keeps its keys in memory only.
// nokey and memory-cache ignore --state.
//
// # Profiles
//
// correct (score 3; the Idempotency-Key header as
// draft-ietf-httpapi-idempotency-key-header describes it):
// an atomic claim per Idempotency-Key under a mutex, on the durable key
// store. A POST without a key is refused with 400; the same key while the
// first request is in flight gets 409 (so of a burst of same-key requests
// exactly one executes); the same key with another payload (a fingerprint
// of method, path and the canonical JSON of the whole body) gets 422; a
// completed key replays the stored status and data with "effect":"noop" and
// the header Idempotent-Replayed: true, across restarts too. The client's
// key is passed to payments as its Idempotency-Key. A failed charge
// releases the claim and stores no reply, so a retry executes; 5xx replies
// are never stored. A released key stays bound to its payload: the charge
// may have gone through before the failure (a reply lost, a client gone
// mid-request), so another payload under the key is still refused with
// 422 rather than taking the key over. An in_progress record written by
// an earlier boot was left by a process that died mid-request: it is
// stale, and the next request with the key claims it again and
// re-executes. That is safe
// because the key goes downstream: if the dead process charged, payments
// answers the re-execution with the same charge (Idempotent-Replayed), and
// the shop answers 200 "created" with a rebuilt reply: a new order id, the
// same charge (the client never saw a success for that intent). So correct survives a crash before or after the
// charge or after the reply, a downstream failure after the charge (the
// retry is de-duplicated by payments), and bursts. Dry-run is supported.
//
// nokey (score 0; the rubric's level 0): the Idempotency-Key is ignored and
// every POST charges, so every retry is a duplicate. Replies have no effect
// field and dry_run is ignored (the request charges). The key is not
// passed downstream either: ignoring it is the whole flaw, and payments
// would otherwise de-duplicate the retries. No state is kept.
//
// noeffect (score 1; the rubric's level 1): the correct guard, but no reply
// ever carries the effect field, replays and dry runs included: a client
// cannot tell a replay from a first run.
//
// nodryrun (score 2; the rubric's level 2): keys, effect field and faithful
// replays as correct, 422 on a reused key, but keys are optional (a keyless
// POST executes without any de-duplication, and has no key to pass on) and
// dry_run is ignored. Missing framework-level enforcement and dry-run are
// what separate 2 from 3.
//
// mismatch (score 2; a key store keyed on the request id alone, with no
// fingerprint): as correct, but nothing compares payloads, so a key reused with
// another payload silently replays the first result (200, "noop") instead
// of 422.
//
// payload-dedup (score 0; the key derived from the operation and its
// inputs): the client's key is ignored
// and the key is derived from the semantic inputs only,
// sha256(operation, customer, amount or plan), leaving out the memo. Retries
// de-duplicate and a missing key is fine, but two distinct intents with the
// same inputs are merged into one charge. Replays say "noop"; dry-run works;
// the derived key (its only key) is passed downstream.
//
// unstable-replay (score 1; a store that only answers is_processed): as
// correct, but the store remembers only that a key was done, not the reply.
// A replay answers {"ok":true,"effect":"noop","data":{"id":<a fresh id>}},
// so the client cannot tell which resource its retry refers to.
//
// mark-first (score 0; mark the key done, then do the work): as correct,
// but the key is marked complete with the reply it means to send before
// payments is called. If the charge fails the shop answers 502, yet the key
// stays marked: the retry replays a success although nothing was charged,
// an acknowledged intent with no effect. (A duplicate sent while the first
// request is in flight gets that planned reply too, not 409.)
//
// read-side-effect (score 0; a safe operation that is not): as correct, but
// GET /orders "verifies the card" of a customer it sees for the first time
// with a real charge of 100 described as "verification " + the trace query
// value: a safe operation with a side effect.
//
// Every profile above except nokey is built on correct's durable store and
// passes the key downstream, so that crashes, bursts and downstream
// failures add no finding to its planted flaw. The next four are the
// patterns that fail exactly there.
//
// memory-cache (score 0; an in-memory key cache): correct's
// atomic claim, fingerprint and faithful replays, but in a map that dies
// with the process, and the charge is made without a key. Sequential
// retries, in-flight duplicates and faults between the client and the
// shop are fine; after a crash (after the charge, or after the reply) the
// retry charges again, and so does the retry after a downstream failure
// that happened after the charge. It ignores --state.
//
// check-then-act (score 0; look up, act, then insert): a durable store
// used as "look the key up; if absent, charge; then insert the reply",
// with no claim between the lookup and the insert and no key downstream.
// --window (Options.Window, default 50µs) is a busy wait between the
// lookup and the charge that widens the race. Sequential retries and a
// crash after the reply replay; concurrent duplicates all charge (the last
// insert wins), and so does the retry after a crash after the charge or
// after a downstream failure after the charge.
//
// lock-no-lease (score 1; an in_progress mark that never expires):
// correct's durable store, but an in_progress record has no lease: it is
// never treated as stale. Within one process it behaves exactly like
// correct (a failed charge still releases the key); a crash between the
// claim and the completion leaves the key answered 409 "in flight" forever,
// over any number of restarts. Stuck, never duplicated. The key goes
// downstream.
//
// no-propagation (score 0; a downstream retry that drops the key): correct in
// every way, the key passed downstream, except that when payments answers
// 5xx the shop retries the charge once by itself, without the
// Idempotency-Key. If payments charged before failing (the ambiguous
// downstream failure) one client request causes two charges; a 5xx before
// the charge is papered over with a 200.
//
// bounded-keys (score 0; a key store bounded by count): correct's durable
// store behind an index of at most --keys keys (default 64, or
// $SHOP_KEYS), least recently used out; a key pushed out is dropped from
// the store too. The key passed downstream is the client's key scoped by
// its admission to the index, so within its retention a key behaves as
// correct's (crashes, downstream failures, bursts); a retry after that
// many other keys executes again and charges again.
//
// expiring-keys (score 0; a key store with a short TTL): as bounded-keys,
// but the index forgets a key --ttl (default 1s) after its admission (or
// after the start of the process, for the keys it loaded): a retry after
// that charges again.
//
// # Confirmation email
//
// With --email URL (Options.EmailURL; the harness passes
// {{fakes.email.url}}) every created order also sends a confirmation email
// through the email fake's SendGrid-like API (POST URL/v3/mail/send), to
// CUSTOMER@customers.shop.example, after the charge succeeded and before
// the key is completed: an order is two side effects, and both must happen
// exactly once. The claim's downstream key (the client's key, for the
// profiles that pass one on) goes to the email API as its Idempotency-Key
// too, and the email's text is built from the request and the charge id
// only, so a retry re-sends the very same email and the provider replays
// it. If the email fails (any non-2xx or transport error) the shop answers
// 502 and releases the key like a failed charge: the retry finds the charge
// replayed by payments and sends the email. Subscriptions send no email.
// Without --email nothing changes.
//
// # Running
//
// Serve runs a shop in-process; Main is the command line used by the thin
// programs in examples/http, one per profile, which print
// "listening on http://ADDR" once ready and stop gracefully on SIGINT or
// SIGTERM. The shop only listens on loopback. Flags: --profile, --listen,
// --payments (default $PAYMENTS_URL), --email (default $EMAIL_URL), --state,
// --window, --keys, --ttl.
package shop
