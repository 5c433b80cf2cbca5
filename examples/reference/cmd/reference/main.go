// Command reference runs one reference target of idemcheck's demo as a
// program of its own: reference [__example] NAME [flags]. It is what
// idemcheck's tests start (built without the race detector), since a
// start of it costs a few milliseconds where a start of idemcheck, which
// carries the same targets, initialises the whole harness first.
package main

import (
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/examples/reference/program"
)

func main() { program.Run(reference.Mains()) }
