// Command shop runs the reference target shop alone, with the command line
// of the program that carries every reference target:
// shop [__example] shop [flags]. The demo starts the shop's profiles from
// here, since crash faults and trials restart them often and a start of a
// program that carries one target initialises that target's packages and
// no others.
package main

import (
	"github.com/idemcheck/idemcheck/examples/reference/program"
	"github.com/idemcheck/idemcheck/examples/shop"
)

func main() {
	program.Run(map[string]program.MainFunc{"shop": program.WithoutStdin(shop.Main)})
}
