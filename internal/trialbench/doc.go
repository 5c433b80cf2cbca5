// Package trialbench measures generated trials per second in a benchmark:
// the one way the benchmarks of the harness, the HTTP target and the
// reference targets time their trials, with the probes' time taken out.
package trialbench
