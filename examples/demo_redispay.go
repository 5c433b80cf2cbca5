package examples

import (
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/examples/redispay"
	"github.com/idemcheck/idemcheck/examples/reference"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// RedispayName is the Redis payments service's name under Subcommand.
const RedispayName = reference.Redispay

// RedispaySpec is the harness spec of one profile of the Redis payments
// service, started from exe on a throwaway Redis declared as its
// dependency "cache": the service is handed the proxy's URL
// ({{deps.cache.url}}), and its payments, the entries of the stream
// "payments", are counted directly in Redis ({{deps.cache.direct_url}}).
// It takes the same requests as the PostgreSQL one (PgpayConfig).
func RedispaySpec(exe, name, profile string) harness.Spec {
	l := &httptarget.Launch{
		Command:   []string{exe, Subcommand, RedispayName, "--profile", profile, "--listen", "127.0.0.1:{{port}}"},
		Env:       map[string]string{"REDIS_URL": "{{deps.cache.url}}"},
		ReadyPath: "/healthz",
	}
	spec := httptarget.Spec(PgpayConfig(name), l)
	spec.Dependencies = []harness.Dependency{{Name: "cache", Protocol: launch.Redis}}
	spec.Observers = []harness.ObserverStarter{observe.Spec{Name: "payments-redis", Kind: "payment",
		Source: observe.Redis{URL: "{{deps.cache.direct_url}}", Stream: "payments"}}.Starter()}
	return spec
}

// RedispayDemo returns the Redis payments service's profiles as demo
// targets.
func RedispayDemo(exe string) []DemoTarget {
	var out []DemoTarget
	for _, p := range redispay.Profiles {
		if !inDemo(p) {
			continue
		}
		info, _ := redispay.Describe(p)
		out = append(out, DemoTarget{Spec: RedispaySpec(exe, "redispay-"+p, p), Built: info.Score, Flaw: info.Flaw})
	}
	return out
}
