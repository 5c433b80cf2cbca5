package examples

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/examples/reference/program"
	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/keys"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// Subcommand is the hidden idemcheck subcommand that runs a reference
// target: idemcheck __example shop --profile NAME --listen ADDR --payments URL.
const Subcommand = program.Subcommand

// ShopName is the reference shop's name after Subcommand, and the name of
// the program that carries it alone (see Programs).
const ShopName = reference.Shop

// Main runs the reference target named by args[0] (see package
// reference): the shop, the webhook handlers, the command-line tools, the
// MCP servers, the services on their own databases or a queue consumer.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return reference.Main(ctx, args, os.Stdin, stdout, stderr)
}

// DemoTarget is one reference target of the demo and what it is built for.
type DemoTarget struct {
	Spec harness.Spec
	// Built is the score the target is built to get.
	Built int
	// Flaw is its planted flaw ("" for the correct one).
	Flaw string
}

// Demo returns the reference targets — the HTTP shop profiles, the webhook
// handlers, the shop that also sends email, the CLI tool's stores, the MCP
// servers and the orders service, its orders in SQLite —
// started by running exe (a binary that understands Subcommand; normally
// idemcheck itself).
func Demo(exe string) []DemoTarget {
	return DemoWith(exe, SQLiteOrders)
}

// DemoWith is Demo with the orders service's profiles keeping their orders
// in db.
func DemoWith(exe string, db OrdersDB) []DemoTarget {
	return DemoFrom(Programs{Exe: exe}, db)
}

// Programs are the programs the demo's reference targets are started
// from.
type Programs struct {
	// Exe understands Subcommand for every reference target: the program
	// built from examples/reference/cmd/reference, or idemcheck itself.
	Exe string
	// Tools, when not empty, is a directory holding, for each target
	// whose processes start most often — the command-line tools and the
	// MCP servers, started once per call or per session, and the shop,
	// which crash faults and trials restart (tools.Names) — a program
	// named after it that carries that target alone, with Exe's command
	// line: the programs built from examples/reference/cmd/NAME, each of
	// which starts at less cost than Exe. Exe starts them otherwise.
	Tools string
}

// tool is the program target name (one of tools.Names) starts from: the
// callers pass the name their command line gives after Subcommand, so
// that the program and the target it is asked for are the same.
func (p Programs) tool(name string) string {
	if p.Tools != "" {
		return filepath.Join(p.Tools, name)
	}
	return p.Exe
}

// DemoFrom is DemoWith with the command-line tools, the MCP servers and
// the shop started from the programs in p.Tools, where it is given, and
// the others from p.Exe.
func DemoFrom(p Programs, db OrdersDB) []DemoTarget {
	exe, shopExe := p.Exe, p.tool(ShopName)
	var out []DemoTarget
	for _, name := range shop.Profiles {
		info, _ := shop.Describe(name)
		if info.Redis {
			continue // needs a Redis server: see RedisShopSpec
		}
		spec := ShopSpec(shopExe, name)
		if name == "bounded-keys" {
			spec = BoundedShopSpec(shopExe, DemoBoundedKeys)
			spec.Name = name
		}
		out = append(out, DemoTarget{Spec: spec, Built: info.Score, Flaw: info.Flaw})
	}
	out = append(out, webhookDemo(exe, shopExe)...)
	out = append(out, CLIDemo(p.tool(OrdertoolName))...)
	out = append(out, MCPDemo(p.tool(MCPName))...)
	out = append(out, OrdersDemo(exe, db)...)
	out = append(out, observedDemo(p, db)...)
	out = append(out, ConsumerDemo(exe)...)
	return sized(out)
}

// DemoSizing is how much the demo probes a reference target that does not
// say otherwise (its Spec.Options): three bursts per mutating operation
// instead of ten, and 24 other keys before a late retry instead of 80. The
// reference targets are known: their races are lost in every burst (ten of
// ten where a run makes ten), and their key stores keep every key, none,
// or, for bounded-keys, DemoBoundedKeys. A run of idemcheck keeps the
// defaults, made for targets nobody has seen.
var DemoSizing = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(DemoLateKeys, 0)}

// DemoLateKeys is how many other keys the demo sends before a late retry
// (DemoSizing).
const DemoLateKeys = 24

// DemoBoundedKeys is how many keys the demo's bounded-keys shop keeps:
// fewer than DemoSizing's late retry sends in between.
const DemoBoundedKeys = 16

// sized gives DemoSizing to the targets that do not set their own options.
func sized(targets []DemoTarget) []DemoTarget {
	for i := range targets {
		if len(targets[i].Spec.Options) == 0 {
			targets[i].Spec.Options = DemoSizing
		}
	}
	return targets
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
	return shopSpecNamed(exe, profile, profile, false)
}

// shopSpecNamed is ShopSpec under another name, with extra flags, given
// two callers' credentials when callers is true or the profile's flaw
// needs them.
func shopSpecNamed(exe, name, profile string, callers bool, extra ...string) harness.Spec {
	dry := profile != "nokey" && profile != "nodryrun"
	launch := &httptarget.Launch{
		Command: append([]string{exe, Subcommand, "shop", "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--state", "{{state_dir}}"}, extra...),
		ReadyPath: "/healthz",
	}
	cfg := ShopConfig(name, dry)
	info, ok := shop.Describe(profile)
	if callers || (ok && info.Callers > 0) {
		cfg.Callers = TwoCallers() // the profile's flaw is between callers
	}
	spec := httptarget.Spec(cfg, launch, PaymentsFake)
	if ok && info.KeyFormat != "" {
		spec.KeyFormat = keys.MustParse(info.KeyFormat)
	}
	return spec
}

// RedisShopSpec is the harness spec of a shop profile that keeps its keys
// in the Redis server at addr (loopback), started from exe. The Redis
// server is the caller's: it outlives the target, as a real one does.
func RedisShopSpec(exe, profile, addr string) harness.Spec {
	launch := &httptarget.Launch{
		Command: []string{exe, Subcommand, "shop", "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--state", "{{state_dir}}", "--redis", addr},
		ReadyPath: "/healthz",
	}
	return httptarget.Spec(ShopConfig(profile, true), launch, PaymentsFake)
}
