// Package postgres is a dependency proxy for PostgreSQL: it sits between a
// target and the target's own database, speaks the PostgreSQL v3 wire
// protocol on both sides (messages framed and decoded with pgx's
// pgproto3), and lets the harness make that database fail, stall, or lose
// the answer to a commit for one intent at a time.
//
// # How it fits
//
// The harness starts the database (internal/pgserver starts a throwaway
// one) or is given its address, calls Start with it, and hands the target
// the proxy's address instead (deps.ReplaceHost rewrites a database URL).
// The target connects as it always does: the proxy declines TLS (the
// answer 'N' to SSLRequest and GSSENCRequest, so sslmode=prefer and
// disable work), forwards the startup message, and relays authentication
// untouched (trust, password, MD5, SCRAM: the proxy never sees a secret it
// has to use). A target that insists on TLS gives up; the proxy records a
// deps.ErrClientRequiresTLS problem, and the harness calls the target
// untestable (deps.InsistsOnTLS). The startup has a deadline
// (Config.StartupTimeout): the target's startup message must arrive within
// it, and the database must be ready for queries within it,
// authentication included. A database that does not answer in time, or
// that speaks another protocol, is a FATAL error with a clear message for
// the target and a problem event for the harness, never a hang; a target
// that does not answer the database's authentication request in time is
// a problem event of its own. Start itself checks that PostgreSQL answers
// at the address.
//
// # What it sees
//
// Every simple Query (split into its statements), and every
// extended-protocol Parse, Bind (parameters included) and Execute, is
// attributed to intents (deps.Control.Attribute: markers in the text or
// parameters, else the open transaction's intents, else the intent in
// flight) and classified by its words: a write (INSERT, UPDATE, DELETE,
// MERGE, COPY FROM, DDL, CALL, DO, a WITH that changes data, EXECUTE), a
// transaction boundary (BEGIN, COMMIT, ROLLBACK) or a read. Each
// connection's transaction state is followed from the database's
// ReadyForQuery ('I', 'T', 'E'), and each statement's completion from its
// CommandComplete or ErrorResponse, so the proxy knows which transaction
// carries an intent's write and when the commit of it (the COMMIT, or the
// write itself outside a transaction) is forwarded and answered, and
// whether it committed. Answers the proxy does not need (rows, row
// descriptions) are streamed through unread, so a 1 GB DataRow is never
// held; messages it reads whole are bounded by Config.MaxMessage, and a
// target's message larger than that is forwarded unattributed and
// reported (deps.ErrTooLarge). A target that pipelines batches without
// reading the answers is followed up to 16,384 batches ahead; past that it
// waits for answers, as it would once the database's socket buffers
// filled.
//
// # Faults
//
//   - deps.Fail: the intent's write fails with an ErrorResponse of the
//     rule's SQLSTATE (40001 by default). The proxy does not forge the
//     error: it replaces the statement with one the real database
//     rejects (a simple Query becomes a SELECT of a column that cannot
//     exist; an Execute names a portal that does not exist), and
//     rewrites that error's code and message on its way back. So the
//     database really failed a statement: inside a transaction, its
//     transaction is aborted ('E') exactly as a serialization failure
//     would leave it, and the ReadyForQuery the target reads is the
//     database's own; in the extended protocol the database itself
//     skips to the Sync. Synthesizing the error instead would leave the
//     database's transaction alive while the target believes it failed,
//     and would require replaying the protocol's skip-to-Sync rules in
//     the proxy. A code after which PostgreSQL ends the connection
//     (57P01 admin_shutdown and the rest of 57P0x, class 08) is sent as
//     FATAL and the connection is closed; the database rolls back.
//   - deps.ResetAfterCommit: the commit carrying the intent's write is
//     forwarded and answered; its answers (held back from the moment the
//     commit was sent, up to Config.MaxHeld) are dropped and the target's
//     connection is reset. The transaction is committed; the target
//     cannot know it.
//   - deps.Stall: each of the intent's statements waits Rule.Delay
//     before it is forwarded.
//   - deps.BeforeCommit and deps.AfterCommitReply: hooks called just
//     before the commit carrying the intent's write is forwarded, and
//     just after the database's answer to it was forwarded and flushed to
//     the target. They may block; the harness kills the target there.
//   - Proxy.RefuseNew: new connections get FATAL 57P03 "the database
//     system is starting up" (deps.RefuseStarting) or a reset
//     (deps.RefuseReset) for a window; with DropConnections, a database
//     restart.
//
// # Not handled
//
// COPY data is streamed without inspection (a marker in COPY FROM STDIN
// rows is not seen; the COPY statement itself is). A function called from
// a SELECT that writes is not seen as a write. Statements of a simple
// Query are told apart by a scanner of quotes, comments and dollar
// quotes, not a parser. LISTEN/NOTIFY, replication connections, and
// protocol 3.2's longer cancel keys pass through untouched, but a fault
// is never armed on them. A Fail rule replaces a whole simple Query,
// every statement of it; a ResetAfterCommit whose commit answer is larger
// than Config.MaxHeld does not act. A client that pipelines several
// batches before reading is followed batch by batch from the database's
// answers, but the target's side's view of the transaction (used for
// events and hooks before a commit) is brought back in line with the
// database only when no batch is outstanding.
package postgres
