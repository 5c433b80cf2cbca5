// Package deps holds what every dependency proxy shares: the attribution of
// a target's database statements and cache commands to the intents that
// caused them, the fault rules the harness arms for one intent, and the
// events the harness waits on.
//
// A target keeps its own state in a database or a cache (PostgreSQL,
// Redis). Most of what makes a retry unsafe happens on that connection: a
// reply stored under the idempotency key while the database was failing, a
// statement that stalls past the key's lifetime, a commit whose answer never
// reaches the target. A dependency proxy (deps/postgres, deps/redis) sits
// between the target and its real database: the harness starts the
// database (or is given its address), starts a proxy in front of it, and
// hands the target the proxy's address instead of the database's (see
// ReplaceHost for a URL). The proxy forwards every byte it does not need to
// change, and understands enough of the protocol to know, for each
// statement or command:
//
//   - which intent it belongs to (Control.Attribute): the markers
//     (idem- and 16 hex digits, see fakes.FindMarkers) found in its text or
//     parameters; else the intents of the transaction it runs in; else the
//     intent the harness has declared in flight (Control.SetInFlight), for
//     targets that store no marker and are observed by delta;
//   - whether it writes, and which transaction carries that write, so that
//     the commit of an intent's write is known (a COMMIT, an EXEC, or the
//     write itself when it runs outside a transaction).
//
// The harness arms a Rule for an intent (Control.Arm): fail its write with
// the database's own kind of error, stall its statements, reset the
// connection once its commit was answered, or call a hook just before its
// commit is forwarded or just after the answer to it was forwarded (the
// harness kills the target there). The Armed value says whether and how
// often the rule fired. Every step is also an Event (Events.Wait), so a test
// or the harness waits on the proxy's own signal, never on a clock.
//
// What a proxy cannot honour (a client that insists on TLS, a dependency
// that does not answer or speaks another protocol, a message too large to
// inspect) is an EventProblem whose error matches one of the Err values
// here with errors.Is, so the harness can call the target untestable and
// say why.
package deps
