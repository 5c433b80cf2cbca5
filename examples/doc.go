// Package examples holds idemcheck's reference targets and the demo that
// scores them side by side.
//
// The targets are real programs built from realistic services whose
// idempotency layer is swapped per profile: a correct one, and ones built
// the way such layers are commonly written, each with its known flaw.
//
//   - examples/shop: an HTTP order service (orders, subscriptions, a safe
//     listing) that charges the payments fake and, with --email, sends a
//     confirmation through the email fake; one program per profile under
//     examples/http.
//   - examples/webhooks: a payment-events webhook handler (signature,
//     de-duplication by event id).
//   - examples/ordertool: an agent-friendly CLI tool with JSON replies
//     (create-order, send-email, get-order) whose idempotency store is
//     chosen by --store; the program is examples/cli/ordertool.
//   - examples/orders: an orders service that keeps its effects in its own
//     database (PostgreSQL or SQLite) and calls no fake; idemcheck counts its
//     orders with an effect observer (package observe). The program is
//     examples/http/orders; the demo runs it on a PostgreSQL it starts when
//     the machine has one (StartOrdersPostgres), else on SQLite.
//
// All of them are also compiled into the idemcheck binary and started by
// re-executing it with the hidden subcommand Subcommand, so `idemcheck demo`
// needs no Go toolchain at run time.
package examples
