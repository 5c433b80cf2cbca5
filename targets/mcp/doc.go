// Package mcp is idemcheck's adapter for MCP tool servers, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk) as the client.
// One attempt is one tools/call.
//
// # Transports
//
//   - stdio (Config.Command): idemcheck starts the server, each session
//     its own process in its own process group (killed with idemcheck);
//     between the client and the server's pipes sits a relay that knows
//     each call by the attempt id in its _meta (MetaAttempt).
//   - streamable HTTP (Config.URL, started by Spec's Launch like an HTTP
//     target): the client talks to the server through faults.Proxy, which
//     knows each call by faults.AttemptHeader.
//   - in process (Config.Server, ServerSpec): an *mcp.Server over
//     in-memory pipes, through the same relay as a stdio server.
//
// # Outcomes
//
// A result is ok; a result with isError: true is a failure; a JSON-RPC
// error is a failure; a lost or cancelled call and a dead transport are
// unknown (info). The effect, identity, status and replay flag are read by
// dotted JSON path from the result's structuredContent, or its first text
// content parsed as JSON (defaults effect, data.id, status, replayed). The
// status, when a result gives one (409 "in flight", 503 "retry"), lets the
// harness retry as it would the HTTP answer.
//
// # Discovery
//
// New lists the tools (tools/list) and plans a call for each: a tool is
// mutating unless annotated readOnlyHint: true (the configuration may
// override, and mcp.annotations reports the disagreement); the key goes in
// the argument the schema calls idempotency_key, idempotencyKey or
// request_id, or in a _meta field, or nowhere; the dry run in a boolean
// dry_run argument; {{marker}} at the JSON path the configuration names
// ("entities.0.name", "entities[0].observations[0]"), or wherever the
// fixed arguments write it (at any depth, inside a longer text), else in
// the first free-text string at any depth of the schema; every other
// argument is generated from the input schema with the run's seed (bounds,
// enums, required fields, nested objects, one element of a required
// array). The annotations go on each harness.Operation for the mcp.*
// checks.
//
// # Faults
//
// Every proxy fault acts over stdio too: the relay hands the armed call
// to the fault as an exchange, as the proxy does, so the server runs the
// call and the client never sees the reply (lost-response), gives up and
// sends notifications/cancelled (client-timeout, hang), or loses its
// transport (reset: the session dies, and the retry comes on a new session,
// over stdio a new server process: the reconnect that catches a cache kept
// in the session). Crashes SIGKILL the server's process group(s) at the
// fakes' events or after the reply, and Restart opens a new session on a
// new process. Bursts spread their copies over BurstSessions sessions (over
// stdio, processes) released together.
//
// The configuration file's mcp kind is package targets/mcp/mcpconfig,
// apart, so that a Go test of a server (ServerSpec) does not build the
// configuration's schema, observers and drivers.
package mcp
