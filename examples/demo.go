package examples

import (
	"context"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/examples/ordertool"
	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/examples/webhooks"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// Subcommand is the hidden idemcheck subcommand that runs a reference
// target: idemcheck __example shop --profile NAME --listen ADDR --payments URL.
const Subcommand = "__example"

// Main runs the reference target named by args[0]: shop (HTTP service),
// webhooks (webhook handler) or ordertool (CLI tool).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "%s: expected a reference target: shop, %s or %s\n", Subcommand, WebhooksName, OrdertoolName)
		return 2
	}
	switch args[0] {
	case "shop":
		return shop.Main(ctx, args[1:], stdout, stderr)
	case WebhooksName:
		return webhooks.Main(ctx, args[1:], stdout, stderr)
	case OrdertoolName:
		return ordertool.Main(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "%s: unknown reference target %q: expected shop, %s or %s\n", Subcommand, args[0], WebhooksName, OrdertoolName)
	return 2
}

// DemoTarget is one reference target of the demo and what it is built for.
type DemoTarget struct {
	Spec harness.Spec
	// Built is the score the target is built to get.
	Built int
	// Flaw is its planted flaw ("" for the correct one).
	Flaw string
	// Seed names the seed document its pattern comes from.
	Seed string
}

// Demo returns the reference targets — the HTTP shop profiles, the webhook
// handlers, the shop that also sends email, and the CLI tool's stores —
// started by running exe (a binary that understands Subcommand; normally
// idemcheck itself).
func Demo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, name := range shop.Profiles {
		info, _ := shop.Describe(name)
		out = append(out, DemoTarget{Spec: ShopSpec(exe, name), Built: info.Score, Flaw: info.Flaw, Seed: info.Seed})
	}
	out = append(out, WebhookDemo(exe)...)
	out = append(out, CLIDemo(exe)...)
	return out
}

// PaymentsFake starts the payments fake writing into the harness's ledger.
func PaymentsFake(ctx context.Context, l *fakes.Ledger) (fakes.Fake, error) {
	return payments.New(payments.Options{Ledger: l})
}

// ShopConfig is the HTTP adapter configuration of the shop service.
func ShopConfig(name string, dryRun bool) httptarget.Config {
	customer := harness.Input{Kind: "string", Prefix: "cus_", Length: 8}
	cfg := httptarget.Config{
		Name:    name,
		BaseURL: "http://127.0.0.1:{{port}}",
		Operations: []httptarget.Operation{
			{
				Name: "create-order", Mutating: true, Method: "POST", Path: "/orders",
				Body:   `{"customer":"{{input.customer}}","amount":{{input.amount}},"memo":"order {{marker}}"}`,
				Inputs: map[string]harness.Input{"customer": customer, "amount": {Kind: "int", Min: 100, Max: 99999}},
			},
			{
				Name: "create-subscription", Mutating: true, Method: "POST", Path: "/subscriptions",
				Body:   `{"customer":"{{input.customer}}","plan":"{{input.plan}}","memo":"subscription {{marker}}"}`,
				Inputs: map[string]harness.Input{"customer": customer, "plan": {Kind: "choice", Choices: []string{"basic", "pro"}}},
			},
			{
				Name: "list-orders", Mutating: false, Method: "GET", Path: "/orders?customer={{input.customer}}&trace={{marker}}",
				Inputs: map[string]harness.Input{"customer": customer},
			},
		},
	}
	if dryRun {
		cfg.DryRun = &httptarget.DryRun{Query: "dry_run"}
	}
	return cfg
}

// ShopSpec is the harness spec of one shop profile, started from exe.
func ShopSpec(exe, profile string) harness.Spec {
	dry := profile != "nokey" && profile != "nodryrun"
	launch := &httptarget.Launch{
		Command: []string{exe, Subcommand, "shop", "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--state", "{{state_dir}}"},
		ReadyPath: "/healthz",
	}
	return httptarget.Spec(ShopConfig(profile, dry), launch, PaymentsFake)
}
