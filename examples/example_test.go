package examples_test

import (
	"context"
	"fmt"
	"os"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
)

// Example_process tests a server run as a separate process: idemcheck
// starts it with the payments fake's address, kills and restarts it for
// the crash faults, and stops it at the end. Here the server is the
// reference shop's correct profile (this test binary, run again).
func Example_process() {
	exe, err := os.Executable()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := harness.Verify(context.Background(), []harness.Spec{examples.ShopSpec(exe, "correct")}, harness.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	t := res.Targets[0]
	fmt.Printf("%s: score %d, %d findings\n", t.Name, t.Score.Level, len(t.Findings))
	// Output: correct: score 3, 0 findings
}
