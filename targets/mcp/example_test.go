package mcp_test

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/examples"
	mcpexample "github.com/idemcheck/idemcheck/examples/mcp"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/mcp"
)

// An in-process MCP server, checked with every fault but a crash: the
// correct reference server scores 3, and the one whose lookup tool is
// annotated read-only but charges is caught by the check meant for it.
func ExampleServerSpec() {
	spec := func(profile string) harness.Spec {
		return mcp.ServerSpec(mcp.Config{Name: profile}, func(env *harness.Env) (*sdk.Server, error) {
			return mcpexample.NewServer(profile, env.Fakes["payments"].URL(), env.StateDir)
		}, examples.PaymentsFake)
	}
	res, err := harness.Verify(context.Background(), []harness.Spec{spec("correct"), spec("readonly-liar")}, harness.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tr := range res.Targets {
		var failing []string
		for _, c := range tr.Checks {
			if c.Status == harness.StatusFail {
				failing = append(failing, c.ID)
			}
		}
		fmt.Println(tr.Name, tr.Score.Level, failing)
	}
	// Output:
	// correct 3 []
	// readonly-liar 0 [safe.readonly mcp.readonly-hint]
}
