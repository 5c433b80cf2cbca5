// Package observe counts a target's side effects in the target's own data,
// for targets whose effects never reach a fake: rows in its database,
// objects its API or its MCP tools list, items in its files, keys in its
// Redis.
//
// An observer is a Spec: a name, the kind of effect, the Object it sees,
// how long to let the source settle, and a Source. The sources are
// plug-ins registered by name in a Registry (Builtin has them all; see
// CREATING_OBSERVERS.md for the contract a new one keeps):
//
//   - sql: a query on PostgreSQL (pgx) or SQLite, always in a read-only
//     transaction, its DSN expanded ({{env.NAME}}, {{state_dir}}) before
//     its scheme is checked;
//   - http: a read-back of the target's API that follows pagination (an
//     RFC 8288 Link header, a cursor in the reply, page or offset
//     parameters) up to a page limit, and says when it stopped there;
//   - mcp: a read-only tool of the MCP server, called through the
//     official Go SDK client on a session of the observer's;
//   - file: a JSON document, a JSONL file or a directory of them;
//   - redis: keys by pattern, a stream's entries, a hash's fields;
//   - count: a number or the rows of a table, read before and after each
//     intent, the change given to the intent in flight (attribution by
//     delta, for targets whose requests carry no caller text).
//
// Spec.Starter gives the harness.ObserverStarter that harness.Spec.Observers
// takes. After each attempt the harness asks every observer for the
// effects of the intent's marker; the observer records the ones not seen
// before into the run's fakes.Ledger, with its name as the effect's Fake,
// its source type in Detail["source"] and its Object in Detail["object"],
// so every check judges them unchanged and a report can say which source
// saw each effect.
//
// What an engine does with an observer beyond EffectObserver:
//
//   - Serial and Begin: an observer that attributes by delta (Attribution
//     is ByDelta) holds only when the target's intents run one at a time;
//     the engine runs them so and calls Begin before each intent.
//   - Merge: observers declared with the same Object see the same effects
//     (a query on the orders table and a read-back of the orders API);
//     Merge counts an effect both saw once, with both as evidence.
//   - Summary and Stats: what the observer saw, in one line, for the
//     message of a target that could not be judged ("orders-db (sql)
//     found no order for any of the 21 markers") and for a read-back that
//     stopped at its page limit.
//
// A source that cannot be read (a failed query, a file that is not JSON, a
// tool that answers an error) makes Observe fail with the observer's name,
// its source type and the reason.
//
// A PostgreSQL observer stays on this machine unless SQL.Remote is set:
// before connecting it parses the final DSN as pgx will (query parameters
// such as ?host=, fallback hosts and the PG* environment included) and
// refuses any host but a Unix socket, a loopback address or the name
// localhost, which is taken as 127.0.0.1 and ::1 without asking DNS; every
// lookup and dial it then makes is held to loopback too. SQLite has no
// host.
package observe
