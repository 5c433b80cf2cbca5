package examples

import (
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
)

// ScaledRedisShopSpec is RedisShopSpec with replicas instances of the shop,
// each on a port of its own and numbered by --instance, all keeping their
// keys in the Redis server at addr and charging through one payments
// fake: a scaled-out deployment, which idemcheck reaches the way a load
// balancer would (retries in turn, bursts split among the instances).
func ScaledRedisShopSpec(exe, profile, addr string, replicas int) harness.Spec {
	launch := &httptarget.Launch{
		Command: []string{exe, Subcommand, "shop", "--profile", profile,
			"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}",
			"--state", "{{state_dir}}", "--redis", addr, "--instance", "{{replica}}"},
		ReadyPath: "/healthz",
		Replicas:  replicas,
	}
	return httptarget.Spec(ShopConfig(profile, true), launch, PaymentsFake)
}
