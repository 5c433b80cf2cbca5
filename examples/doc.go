// Package examples holds idemcheck's reference targets and the demo that
// scores them side by side.
//
// The targets are real programs (examples/http/<profile>) built from one
// realistic service, examples/shop, whose idempotency layer is swapped per
// profile: a correct one, and ones built the way the seed documents build
// them, each with its known flaw. They are also compiled into the idemcheck
// binary and started by re-executing it with the hidden subcommand
// Subcommand, so `idemcheck demo` needs no Go toolchain at run time.
package examples
