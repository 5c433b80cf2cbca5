// Command mcpdb runs the reference task-tracker MCP server that keeps its
// tasks in its own database; see package
// github.com/idemcheck/idemcheck/examples/mcpdb for its profiles.
//
// Usage:
//
//	mcpdb --profile correct|session-keys --db postgres://…|sqlite:PATH
package main
