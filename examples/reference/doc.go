// Package reference starts one reference target by name: the programs
// that idemcheck's demo and tests judge (the shop, the webhook handlers,
// the command-line tools, the MCP servers, the services on their own
// databases, the queue consumers), each flawed on purpose or not.
//
// It imports the reference targets and nothing of idemcheck's harness, so
// that a program built from it alone (cmd/reference) starts in a few
// milliseconds: every call of a reference command-line tool is a start of
// such a program. The idemcheck binary carries the same targets under its
// hidden subcommand (examples.Subcommand), at the price of initialising
// the whole of idemcheck at every start.
package reference
