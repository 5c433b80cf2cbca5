// Package tools starts, by name, the reference targets that run as a
// process per call or per session: the command-line tools (ordertool,
// clidb, jsonstore) and the MCP servers (mcp, mcpdb). It is the part of
// package reference that such a start needs, and nothing else, so that a
// program built from it alone (cmd/tools) initialises only these targets'
// packages: a start of it costs about a third less processor time than a
// start of the program that carries every reference target, whose
// brokers' and databases' clients each set up tables at start-up.
//
// Package reference takes these targets from here (Mains) and runs every
// one, these included, with the same arguments (Dispatch).
package tools
