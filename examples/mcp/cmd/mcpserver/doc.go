// Command mcpserver runs a reference MCP server (see package
// examples/mcp): mcpserver --profile NAME --payments URL --state DIR
// [--listen 127.0.0.1:PORT].
package main
