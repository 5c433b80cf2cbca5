// Package mcpdb is a reference MCP server that keeps its effects in its
// own database (SQLite or PostgreSQL): a task tracker on the official Go
// SDK, whose create_task inserts a row and whose search_tasks reads them.
// Nothing reaches a fake: idemcheck counts its tasks with a SQL observer
// on the tasks table, or an MCP observer calling search_tasks on a server
// process of its own.
//
// Tools (results are JSON, as structuredContent and as text):
//
//	create_task   {title, notes, priority 1-5, idempotency_key, dry_run}
//	              → {"ok":true,"effect":"created"|"noop"|"would_create","data":{"id":7,"title":"…",…},"status":200}
//	              {"ok":false,"error":"key_required"|"key_mismatch",…,"status":400|422} (isError)
//	search_tasks  {query} (readOnlyHint) → {"ok":true,"items":[{"id":7,"title":"…","notes":"…","priority":2}, …]}
//
// The profiles (Profiles) differ in where the keys are kept:
//
//   - correct: in a UNIQUE column of the task row, written by the same
//     INSERT … ON CONFLICT (idempotency_key) DO NOTHING, with a payload
//     fingerprint: a retry on any session, in any process, replays the
//     task; a reused key with other arguments is refused; a call without
//     a key too.
//   - session-keys: in the server process's memory, without the payload:
//     a retry on the same session is replayed, but over stdio every
//     session is a process of its own, so a retry on a new session (the
//     client reconnected, the server restarted) makes the task again; a
//     reused key with other arguments replays the first task.
//
// Run it with Main (cmd/mcpdb is its program): --profile NAME --db
// postgres://…|sqlite:PATH, over stdio; every session is a process of its
// own, as an MCP host starts it.
package mcpdb
