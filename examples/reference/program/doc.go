// Package program runs reference targets as whole programs: it picks a
// target by name from a table of main functions (Dispatch) and runs it
// with the process's arguments, streams and signals (Run). It imports no
// reference target, so that a program made of one target and this package
// (examples/reference/cmd/NAME) initialises that target's packages and no
// others: a start of it is the cheapest start a reference target can have,
// and the demo starts its command-line tools and MCP servers on stdio
// thousands of times a run.
package program
