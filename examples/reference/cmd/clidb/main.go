// Command clidb runs the reference target clidb alone, with the command
// line of the program that carries every reference target:
// clidb [__example] clidb [flags]. The demo starts it from here, since it
// starts it once per call or per session and a start of a program that
// carries one target initialises that target's packages and no others.
package main

import (
	"github.com/idemcheck/idemcheck/examples/clidb"
	"github.com/idemcheck/idemcheck/examples/reference/program"
)

func main() { program.Run(map[string]program.MainFunc{"clidb": program.WithoutStdin(clidb.Main)}) }
