// Package tools names the reference targets whose processes start most
// often: those that run as a process per call or per session, the
// command-line tools (ordertool, clidb, jsonstore) and the MCP servers
// (mcp, mcpdb), and the shop, which crash faults and generated trials
// restart again and again; and runs them by name.
//
// Each of them is also a program of its own, examples/reference/cmd/NAME,
// that carries that target and nothing else, with the command line of the
// program that carries every reference target ([__example] NAME
// [ARG ...]): the demo starts these targets from them, since most of the
// processes a demo starts are theirs, and a start of a program that
// initialises one target's packages costs less processor time than a
// start of one that carries them all: a fifth less for ordertool and
// clidb, three fifths less for jsonstore, nearly half for the shop.
//
// Package reference takes these targets from here (Mains) and runs every
// one, these included, with the same arguments (program.Dispatch).
package tools
