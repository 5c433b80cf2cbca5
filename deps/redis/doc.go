// Package redis is a dependency proxy for Redis: it sits between a target
// and the target's own Redis, speaks RESP on both sides (RESP2, and RESP3
// once the target's HELLO 3 has switched it, which the proxy relays
// untouched), and lets the harness make Redis fail, stall, or lose the
// reply to a write for one intent at a time.
//
// # How it fits
//
// The harness starts Redis (internal/redisserver starts a throwaway one)
// or is given its address, calls Start with it, and hands the target the
// proxy's address instead (deps.ReplaceHost rewrites a redis:// URL).
// Start checks with an inline PING that Redis answers there: a dependency
// that does not answer, or answers in another protocol, is an error then,
// and a reply that is not RESP later ends the connection with an -ERR that
// says so and a problem event. AUTH, HELLO, SELECT and the rest pass
// through; the proxy never needs a secret.
//
// # What it sees
//
// Every command (an array of bulk strings, or an inline command) is
// attributed to intents (deps.Control.Attribute: markers in any argument,
// else the intents of the open MULTI, else the intent in flight) and
// classified: a write (SET, SETNX, HSET, XADD, INCR, DEL, EXPIRE, EVAL,
// EVALSHA, FCALL, … see writeCommands) or not. A write outside MULTI is
// its own commit; inside MULTI, the EXEC is the commit of every write
// queued, and a nil EXEC reply (a WATCHed key changed) or an error is no
// commit. Replies come back in the order of the commands; the proxy
// matches each to its command, streaming bulk strings through unread (a
// 1 GB value is never held), skipping RESP3 pushes. Commands are read
// whole up to Config.MaxCommand; a larger one is forwarded as it streams,
// unattributed, and reported (deps.ErrTooLarge). Up to 16,384 commands
// are followed ahead of their replies; a deeper pipeline waits for
// replies, as it would once Redis's socket buffers filled.
//
// # Faults
//
//   - deps.Fail: the intent's write is answered with "-CODE message"
//     (ERR by default; LOADING, BUSY, READONLY, OOM, … with Redis's own
//     texts). The write is not run: it is replaced by a command Redis
//     rejects, so the reply keeps its place among pipelined ones, and
//     inside MULTI the EXEC then fails with EXECABORT as it does when
//     Redis rejects a queued command.
//   - deps.ResetAfterCommit: the write (or EXEC) is forwarded and
//     answered; the target's connection is reset instead of receiving
//     the reply. The write happened; the target cannot know it.
//   - deps.Stall: each of the intent's commands waits Rule.Delay before
//     it is forwarded (the commands pipelined behind it wait too, as on a
//     slow Redis).
//   - deps.BeforeCommit and deps.AfterCommitReply: hooks called just
//     before the write (or EXEC) is forwarded, and just after its reply
//     was forwarded and flushed to the target.
//   - Proxy.RefuseNew: deps.RefuseStarting answers every command but
//     HELLO, AUTH and QUIT with -LOADING on every connection, as a
//     restarting Redis loading its dataset; deps.RefuseReset resets new
//     connections. With DropConnections, a Redis restart.
//
// # Not handled
//
// After SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, MONITOR, SYNC, PSYNC or CLIENT
// REPLY OFF/SKIP, replies no longer follow commands one for one: the
// proxy relays that connection untouched from then on, without
// attribution or faults. Inline commands are split at blanks (Redis's
// quoting in inline commands is not interpreted). A Lua script's or a
// function's effects are counted as one write whether or not it writes.
// Cluster redirections (MOVED, ASK) pass through, but a proxy stands in
// front of one node only. Redis does not answer blocking commands within
// any bound, so a Redis that stalls after Start's check is waited on as
// the target would wait on it.
package redis
