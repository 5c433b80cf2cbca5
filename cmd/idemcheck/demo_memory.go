package main

import (
	"runtime/debug"
)

// demoMemoryLimit is the soft limit the demo gives Go's memory where
// GOMEMLIMIT does not set one. The demo holds every target's record until
// its reports are written (some 70 MB live at most for its 69 targets),
// and without a limit the collector lets the heap grow to twice what was
// live after its last cycle before it runs again; near this limit it runs
// sooner instead, which costs it a few percent more processor time. A
// soft limit: where more is live, the heap grows past it.
var demoMemoryLimit int64 = 128 << 20

// limitDemoMemory sets demoMemoryLimit as Go's soft memory limit unless
// GOMEMLIMIT (getenv's) sets one or the limit is 0, and returns what puts
// the previous limit back.
func limitDemoMemory(getenv func(string) string) (restore func()) {
	if demoMemoryLimit <= 0 || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(demoMemoryLimit)
	return func() { debug.SetMemoryLimit(prev) }
}
