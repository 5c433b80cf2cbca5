// Command idemcheck is a chaos and conformance harness for idempotent tools:
// it drives a target through retries, faults and duplicate requests, counts
// the side effects that really happened on fake downstream services, and
// scores the target 0–3.
//
//	idemcheck demo                      # the reference targets, scored side by side
//	idemcheck run [-c idemcheck.yaml]   # your targets: probes, then generated trials
//	idemcheck report result.json…       # re-score, re-render, merge shards
//	idemcheck replay [-c FILE] TRIALS   # run saved failing trials again
//	idemcheck fakes                     # the fakes alone, to point a tool at by hand
//	idemcheck init -- ./tool            # a starter configuration for a CLI tool
//	idemcheck version                   # its version, the one its reports record
//
// Every command's -h or --help (or idemcheck help COMMAND) prints its usage
// and flags and exits 0. The flags of replay and report may come after
// their files too (idemcheck replay TRIALS --seed 3); a -- ends them.
//
// Exit codes: 0 every target met the gate (--min-score, default 3 for run
// and report, 0 for the demo; no critical finding; with --baseline, nothing
// new); 1 one did not; 2 bad usage, configuration or input; 3 the harness
// could not do its job; 130 interrupted.
//
// main only calls run, which tests drive in-process.
package main
