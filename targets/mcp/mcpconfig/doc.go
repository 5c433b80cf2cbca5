// Package mcpconfig is the mcp kind of the configuration file: its
// section (Section and its tools, ToolSection), how the section is
// checked and given its defaults, and the harness.Spec it becomes through
// package targets/mcp (Section.Spec). ConfigKind registers it
// (config.Builtin).
//
// It is a package of its own so that a Go test that checks an MCP server
// in process with targets/mcp (ServerSpec) does not build what the
// configuration file needs: its schema, the observers and their database
// drivers.
package mcpconfig
