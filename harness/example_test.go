package harness_test

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/harness"
)

// ExampleVerify scores two in-memory shops (see memtarget_test.go): a
// correct one, and one that marks a key done before it charges, so a
// charge that fails is never retried and the customer's order is lost.
func ExampleVerify() {
	correct, _ := shopSpec("shop", shopConfig{})
	markFirst, _ := shopSpec("mark-first", shopConfig{markFirst: true})
	res, err := harness.Verify(context.Background(), []harness.Spec{correct, markFirst}, harness.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tr := range res.Targets {
		fmt.Printf("%s: score %d, %d findings\n", tr.Name, tr.Score.Level, len(tr.Findings))
		for _, f := range tr.Findings {
			fmt.Printf("  %s (%s) after %s\n", f.Check, f.Severity, f.Fault)
		}
	}
	// Output:
	// shop: score 3, 0 findings
	// mark-first: score 0, 2 findings
	//   exactly-once (critical) after downstream-503
	//   exactly-once (critical) after crash-before-effect
}

func ExampleExpand() {
	c := harness.Call{Key: "idk-1", Marker: "idem-00000000000000aa", Inputs: map[string]string{"amount": "1200"}}
	body, err := harness.Expand(`{"amount": {{input.amount}}, "description": "order {{ marker }}"}`, c.Vars())
	fmt.Println(body, err)

	// A typo never reaches the target as a literal.
	_, err = harness.Expand("/orders/{{input.id}}?key={{key}}", c.Vars())
	fmt.Println(err)
	// Output:
	// {"amount": 1200, "description": "order idem-00000000000000aa"} <nil>
	// unknown placeholder {{input.id}} in "/orders/{{input.id}}?key={{key}}"
}
