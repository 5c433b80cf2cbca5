package cli_test

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// A tool is a command line plus, per operation, argument templates. Here
// the "tool" is a shell one-liner that replies with {ok, effect, data}.
func ExampleNew() {
	tg, err := clitarget.New(clitarget.Config{
		Name:    "orders",
		Command: []string{"/bin/sh", "-c", `printf '{"ok":true,"effect":"created","data":{"id":"%s"}}\n' "$1"`, "sh"},
		Operations: []clitarget.Operation{
			{Name: "create-order", Mutating: true, Args: []string{"ord-{{input.n}}"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tg.Close()
	rep := tg.Call(context.Background(), harness.Call{
		ID: "a-1", Operation: "create-order", Key: "k-1", Marker: "idem-1", Inputs: map[string]string{"n": "7"},
	})
	fmt.Println(rep.Outcome, rep.Status, rep.Effect, rep.Identity)
	// Output: ok 0 created ord-7
}
