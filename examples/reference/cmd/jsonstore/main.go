// Command jsonstore runs the reference target jsonstore alone, with the command
// line of the program that carries every reference target:
// jsonstore [__example] jsonstore [flags]. The demo starts it from here, since it
// starts it once per call or per session and a start of a program that
// carries one target initialises that target's packages and no others.
package main

import (
	"github.com/idemcheck/idemcheck/examples/jsonstore"
	"github.com/idemcheck/idemcheck/examples/reference/program"
)

func main() {
	program.Run(map[string]program.MainFunc{"jsonstore": program.WithoutStdin(jsonstore.Main)})
}
