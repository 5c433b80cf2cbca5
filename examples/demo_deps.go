package examples

import (
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// DependencyDemo returns the demo targets that keep their keys in a real
// database server, each on a throwaway one declared as its dependency —
// the PostgreSQL payments service (PgpayDemo) and the Redis one
// (RedispayDemo) — for each server this machine has; skipped says, for
// each it has not, which targets are left out and why.
func DependencyDemo(exe string) (targets []DemoTarget, skipped []string) {
	if _, err := pgserver.Find(); err != nil {
		skipped = append(skipped, "the PostgreSQL payments service (pgpay-*) is left out: "+err.Error())
	} else {
		targets = append(targets, PgpayDemo(exe)...)
	}
	if _, err := redisserver.Find(); err != nil {
		skipped = append(skipped, "the Redis payments service (redispay-*) is left out: "+err.Error())
	} else {
		targets = append(targets, RedispayDemo(exe)...)
	}
	return sized(targets), skipped
}

// inDemo says whether a profile of the dependency services is scored in the
// demo. short-lease is not: its flaw is a lease racing the wall clock, so
// its score holds on every run but which checks catch it besides the stall
// (a burst slower than the lease) varies between two runs of one seed. Its
// tests score it (TestPgpay, TestRedispay).
func inDemo(profile string) bool { return profile != "short-lease" }
