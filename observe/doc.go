// Package observe counts a target's side effects in the target's own data,
// for targets whose effects never reach a fake: rows in the database the
// target writes to (Source kind "sql", PostgreSQL through pgx or SQLite),
// or objects its own API lists (kind "http", a read-back request polled
// until it settles).
//
// Each Observer finds the effects of one intent by its marker and records
// the ones not seen before into the same fakes.Ledger the fakes write, with
// the observer's name as the effect's Fake and its kind ("sql" or "http")
// in Detail["source"], so every check judges them unchanged and a report
// can say which source saw each effect. The harness asks every observer
// after each attempt, before it reads the ledger's sequence number that
// closes the attempt's window (see harness.EffectObserver).
//
// A PostgreSQL observer stays on this machine unless SQL.Remote is set:
// before connecting it parses the final DSN as pgx will (query parameters
// such as ?host=, fallback hosts and the PG* environment included) and
// refuses any host but a Unix socket, a loopback address or the name
// localhost, which is taken as 127.0.0.1 and ::1 without asking DNS; every
// lookup and dial it then makes is held to loopback too. SQLite has no
// host.
package observe
