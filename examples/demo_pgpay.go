package examples

import (
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/examples/pgpay"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// PgpayName is the PostgreSQL payments service's name under Subcommand.
const PgpayName = reference.Pgpay

// PgpayConfig is the HTTP adapter configuration of the payments service:
// the marker goes into the payment's note, which its database keeps.
func PgpayConfig(name string) httptarget.Config {
	return httptarget.Config{
		Name:    name,
		BaseURL: "http://127.0.0.1:{{port}}",
		DryRun:  &httptarget.DryRun{Query: "dry_run"},
		Operations: []httptarget.Operation{{
			Name: "pay", Mutating: true, Method: "POST", Path: "/v1/payments",
			Headers: map[string]string{"Content-Type": "application/json"},
			Body:    `{"amount":{{input.amount}},"note":"payment {{marker}}"}`,
			Inputs:  map[string]harness.Input{"amount": {Kind: "int", Min: 100, Max: 99999}},
		}},
	}
}

// PgpaySpec is the harness spec of one payments profile, started from exe
// on a throwaway PostgreSQL declared as its dependency "db": the service
// is handed the proxy's URL ({{deps.db.url}}), and its payments are
// counted directly in the database ({{deps.db.direct_url}}).
func PgpaySpec(exe, name, profile string) harness.Spec {
	return PgpaySpecURL(exe, name, profile, "{{deps.db.url}}")
}

// PgpaySpecURL is PgpaySpec with the database URL the service is handed,
// a template: a URL of its own to the proxy ({{deps.db.addr}}), with
// another sslmode.
func PgpaySpecURL(exe, name, profile, dbURL string) harness.Spec {
	l := &httptarget.Launch{
		Command:   []string{exe, Subcommand, PgpayName, "--profile", profile, "--listen", "127.0.0.1:{{port}}"},
		Env:       map[string]string{"DATABASE_URL": dbURL},
		ReadyPath: "/healthz",
	}
	spec := httptarget.Spec(PgpayConfig(name), l)
	spec.Dependencies = []harness.Dependency{{Name: "db", Protocol: launch.Postgres}}
	spec.Observers = []harness.ObserverStarter{observe.SQLStarter(observe.SQL{Name: "payments-db", Kind: "payment",
		DSN: "{{deps.db.direct_url}}", Query: `SELECT id, amount FROM payments WHERE note LIKE '%' || {{marker}} || '%'`})}
	return spec
}

// PgpayDemo returns the payments service's profiles as demo targets.
func PgpayDemo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, p := range pgpay.Profiles {
		if !inDemo(p) {
			continue
		}
		info, _ := pgpay.Describe(p)
		out = append(out, DemoTarget{Spec: PgpaySpec(exe, "pgpay-"+p, p), Built: info.Score, Flaw: info.Flaw})
	}
	return out
}
