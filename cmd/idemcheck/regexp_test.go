package main

import (
	"testing"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// TestExpressionsCompile compiles every regular expression that the
// program's packages declare at their top level to compile on first use:
// one that does not compile would otherwise panic only when first used.
func TestExpressionsCompile(t *testing.T) {
	if err := lazyregexp.Check(); err != nil {
		t.Fatal(err)
	}
}
