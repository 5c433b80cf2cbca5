// Package latency times the operations of the dependency proxies'
// benchmarks: one operation direct and one through the proxy in turn, so
// that both see the same machine, and the medians and their ratio
// reported with the benchmark.
package latency
