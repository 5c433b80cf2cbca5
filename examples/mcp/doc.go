// Package mcp holds the reference MCP servers: real programs on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk) whose tools
// charge the payments fake, each with one way of handling retries, served
// over stdio or streamable HTTP. idemcheck scores them in its demo, and
// their tests prove each of idemcheck's MCP checks both ways.
//
// Every server has two tools: create_payment (a charge at the payments
// API; description is where a caller's text, and idemcheck's marker,
// rides) and lookup_payment (finds charges by free text). The correct
// ones, given an email API (--email), also have send_receipt (a message
// through the email fake, its key passed on as well). Results are
// JSON, as structuredContent and as text:
//
//	{"ok":true,"effect":"created","data":{"id":"pay_…","charge":"ch_…",…},"status":200}
//	{"ok":true,"effect":"noop","replayed":true,"data":{…},"status":200}
//	{"ok":true,"effect":"would_create","data":{…},"status":200}
//	{"ok":false,"error":"key_required","reason":"…","status":400}   (isError)
//
// status says which HTTP status the result stands for, so that a client
// knows a 409 ("in flight: retry") from a 422 ("never retry").
//
// The profiles (Profiles, Describe):
//
//   - correct: the key argument (idempotency_key) is claimed durably (an
//     flock'd file per key in the state directory: atomic across
//     sessions and processes, and a lease the kernel ends when its holder
//     dies), fingerprinted, replayed with effect "noop", refused when
//     missing, and passed downstream as the Idempotency-Key; dry_run;
//     truthful annotations.
//   - session-cache: remembers keys in the MCP session: correct on one
//     session, a duplicate charge when the retry comes on a new one.
//   - idempotent-liar: annotated idempotentHint: true, takes no key, and
//     charges on every call.
//   - readonly-liar: create_payment done right, but lookup_payment,
//     annotated readOnlyHint: true, charges a verification fee.
//   - nokey: no key, no dry run, no effect field, no annotations.
//
// Run one with Main (idemcheck __example mcp, or the program in
// cmd/mcpserver): --profile NAME --payments URL --state DIR [--email URL], and
// --listen ADDR to serve streamable HTTP at /mcp instead of stdio.
package mcp
