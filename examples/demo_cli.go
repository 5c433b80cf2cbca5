package examples

import (
	"slices"

	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// OrdertoolName is the name of the reference CLI tool under Subcommand:
// idemcheck __example ordertool --store STORE COMMAND [flags].
const OrdertoolName = reference.Ordertool

// OrdertoolStore is one idempotency store of the reference CLI tool and
// what idemcheck makes of it.
type OrdertoolStore struct {
	Store string
	// Built is the score the store gets; Failing are the checks it fails.
	Built   int
	Failing []string
	Flaw    string
}

// OrdertoolStores are the stores of examples/ordertool, with the scores
// and failing checks measured with the default faults (see
// cli_demo_test.go, which asserts them).
var OrdertoolStores = []OrdertoolStore{
	{Store: "none", Built: 0,
		Flaw: "no idempotency: every call acts; no dry run",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "dryrun",
			"key.mismatch", "key.required", "retry.after-fault", "retry.late", "retry.sequential"}},
	{Store: "jsonl", Built: 0,
		Flaw:    "is_processed, then mark_in_progress: not atomic across processes; in_progress re-run after a crash; no key downstream; keyless calls unguarded; no fingerprint",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch", "key.required", "key.scope"}},
	{Store: "sqlite", Built: 0,
		Flaw:    "check-then-set: nothing in progress, so bursts and crashes act twice; no key downstream; no fingerprint",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch", "key.scope"}},
	{Store: "correct", Built: 3,
		Flaw: ""},
}

// CLIDemo returns the reference CLI targets, one per store, started by
// running exe (a binary that understands Subcommand; normally idemcheck
// itself) as exe Subcommand ordertool --store STORE.
func CLIDemo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, s := range OrdertoolStores {
		out = append(out, DemoTarget{
			Spec:  OrdertoolSpec([]string{exe, Subcommand, OrdertoolName}, s.Store),
			Built: s.Built, Flaw: s.Flaw,
		})
	}
	return out
}

// OrdertoolConfig is the CLI adapter configuration of the reference tool
// with one store; command runs the tool (e.g. ["./ordertool"], or
// idemcheck's hidden subcommand).
func OrdertoolConfig(command []string, store string) clitarget.Config {
	customer := harness.Input{Kind: "string", Prefix: "cus_", Length: 8}
	return clitarget.Config{
		Name:    OrdertoolName + "-" + store,
		Command: append(slices.Clone(command), "--store", store),
		Env: map[string]string{
			"STATE_DIR":    "{{state_dir}}",
			"PAYMENTS_URL": "{{fakes.payments.url}}",
			"EMAIL_URL":    "{{fakes.email.url}}",
		},
		NoDryRun: store == "none",
		Operations: []clitarget.Operation{
			{
				Name: "create-order", Mutating: true,
				Args:   []string{"create-order", "--customer", "{{input.customer}}", "--amount", "{{input.amount}}", "--memo", "order {{marker}}"},
				Inputs: map[string]harness.Input{"customer": customer, "amount": {Kind: "int", Min: 100, Max: 99999}},
			},
			{
				Name: "send-email", Mutating: true,
				Args:   []string{"send-email", "--to", "{{input.to}}", "--subject", "{{input.subject}}", "--memo", "receipt {{marker}}"},
				Inputs: map[string]harness.Input{"to": {Kind: "choice", Choices: []string{"ann@example.test", "bob@example.test"}}, "subject": {Kind: "choice", Choices: []string{"Your receipt", "Your order"}}},
			},
			{
				Name: "get-order", Mutating: false,
				Args: []string{"get-order", "--id", "ord_{{marker}}"},
			},
		},
	}
}

// OrdertoolOptions tune the runs of the reference CLI tool: every burst
// copy and every late-retry filler of a CLI target is a process of its
// own, so it gets 3 bursts (not 10) and 24 other keys before a late retry
// (not 80). Its stores either keep every key or none, and their races are
// between processes that start together, so this finds the same flaws in a
// fifth of the time.
var OrdertoolOptions = []harness.Option{harness.WithBursts(3), harness.WithLateRetry(DemoLateKeys, 0)}

// OrdertoolSpec is the harness spec of the reference tool with one store.
func OrdertoolSpec(command []string, store string) harness.Spec {
	spec := clitarget.Spec(OrdertoolConfig(command, store), PaymentsFake, EmailFake)
	spec.Options = OrdertoolOptions
	return spec
}
