package examples

import (
	"context"
	"slices"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
)

// OrdertoolName is the name of the reference CLI tool under Subcommand:
// idemcheck __example ordertool --store STORE COMMAND [flags].
const OrdertoolName = "ordertool"

// OrdertoolStore is one idempotency store of the reference CLI tool and
// what idemcheck makes of it.
type OrdertoolStore struct {
	Store string
	// Built is the score the store gets; Failing are the checks it fails.
	Built   int
	Failing []string
	Flaw    string
	Seed    string
}

// OrdertoolStores are the stores of examples/ordertool, with the scores
// and failing checks measured with the default faults (see
// cli_demo_test.go, which asserts them).
var OrdertoolStores = []OrdertoolStore{
	{Store: "none", Built: 0, Seed: "seed 001",
		Flaw: "no idempotency: every call acts; no dry run",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "dryrun",
			"key.mismatch", "key.required", "retry.after-fault", "retry.sequential"}},
	{Store: "jsonl", Built: 0, Seed: "seed 000",
		Flaw:    "is_processed, then mark_in_progress: not atomic across processes; in_progress re-run after a crash; no key downstream; keyless calls unguarded; no fingerprint",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch", "key.required"}},
	{Store: "sqlite", Built: 0, Seed: "seed 002, option 4",
		Flaw:    "check-then-set: nothing in progress, so bursts and crashes act twice; no key downstream; no fingerprint",
		Failing: []string{"concurrent.duplicates", "crash.recovery", "downstream.propagation", "key.mismatch"}},
	{Store: "correct", Built: 3, Seed: "seed 001",
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
			Built: s.Built, Flaw: s.Flaw, Seed: s.Seed,
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

// OrdertoolSpec is the harness spec of the reference tool with one store.
func OrdertoolSpec(command []string, store string) harness.Spec {
	return clitarget.Spec(OrdertoolConfig(command, store), PaymentsFake, emailFake)
}

// emailFake starts the email fake writing into the harness's ledger.
func emailFake(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
	return email.New(email.Options{Ledger: l})
}
