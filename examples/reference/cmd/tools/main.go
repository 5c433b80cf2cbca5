// Command tools runs one of the reference targets that the demo starts
// once per call or per session — the command-line tools and the MCP
// servers on stdio — as a program that carries only them:
// tools [__example] NAME [flags], the arguments of cmd/reference. The demo
// starts these targets from it, since most of the processes it starts are
// theirs and a start of it initialises fewer packages.
package main

import "github.com/idemcheck/idemcheck/examples/reference/tools"

func main() { tools.Program(tools.Main) }
