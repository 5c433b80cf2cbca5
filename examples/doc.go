// Package examples holds idemcheck's reference targets and the demo that
// scores them side by side.
//
// The targets are real programs built from realistic services whose
// idempotency layer is swapped per profile: a correct one, and ones built
// the way the seed documents build them, each with its known flaw.
//
//   - examples/shop: an HTTP order service (orders, subscriptions, a safe
//     listing) that charges the payments fake and, with --email, sends a
//     confirmation through the email fake; one program per profile under
//     examples/http.
//   - examples/webhooks: a payment-events webhook handler (signature,
//     de-duplication by event id).
//   - examples/ordertool: a seed-001 CLI tool (create-order, send-email,
//     get-order) whose idempotency store is chosen by --store; the program
//     is examples/cli/ordertool.
//
// All of them are also compiled into the idemcheck binary and started by
// re-executing it with the hidden subcommand Subcommand, so `idemcheck demo`
// needs no Go toolchain at run time.
package examples
