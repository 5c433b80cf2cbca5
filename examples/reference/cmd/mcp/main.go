// Command mcp runs the reference target mcp alone, with the command
// line of the program that carries every reference target:
// mcp [__example] mcp [flags]. The demo starts it from here, since it
// starts it once per call or per session and a start of a program that
// carries one target initialises that target's packages and no others.
package main

import (
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/examples/reference/program"
)

func main() { program.Run(map[string]program.MainFunc{"mcp": mcpexample.Main}) }
