// Package stderrline picks, from the end of what a target wrote to its
// standard error, the line that says what went wrong: an error's own
// line ("Error: Cannot find module …", "ModuleNotFoundError: …",
// "panic: …") rather than the runtime's banner or stack frames that
// follow it.
package stderrline
