package deps_test

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/deps"
)

// A harness arms a rule for one intent and waits for the proxy to say it
// acted; here the proxy's part is played by hand.
func ExampleControl() {
	ctl := deps.NewControl(nil)
	armed, err := ctl.Arm(deps.Rule{Intent: "idem-00000000000000aa", Action: deps.Fail, Code: "40001"})
	if err != nil {
		panic(err)
	}
	// What a proxy does with a statement it sees:
	intents := ctl.Attribute(deps.MarkersIn("INSERT INTO orders (key) VALUES ('idem-00000000000000aa')"), nil)
	if a, intent, ok := ctl.Rules().Take(intents, deps.Fail); ok {
		ctl.Events().Record(deps.Event{Kind: deps.EventFault, Intent: intent, Action: a.Rule().Action})
	}
	ev, _ := ctl.Events().WaitFor(context.Background(), deps.EventFault, "idem-00000000000000aa")
	fmt.Println(ev.Action, armed.Count())
	// Output: fail 1
}
