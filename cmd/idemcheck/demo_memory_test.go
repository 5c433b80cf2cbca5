package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDemoMemoryLimit: the demo sets its soft memory limit, and puts the
// previous one back, unless GOMEMLIMIT sets one.
func TestDemoMemoryLimit(t *testing.T) {
	saved := demoMemoryLimit
	t.Cleanup(func() { demoMemoryLimit = saved })
	demoMemoryLimit = 256 << 20
	before := debug.SetMemoryLimit(-1)
	is := assert.New(t)

	restore := limitDemoMemory(func(string) string { return "" })
	is.Equal(int64(256<<20), debug.SetMemoryLimit(-1), "the demo's limit while it runs")
	restore()
	is.Equal(before, debug.SetMemoryLimit(-1), "the previous limit afterwards")

	restore = limitDemoMemory(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	is.Equal(before, debug.SetMemoryLimit(-1), "GOMEMLIMIT wins")
	restore()

	demoMemoryLimit = 0
	limitDemoMemory(func(string) string { return "" })()
	is.Equal(before, debug.SetMemoryLimit(-1), "no limit where it is 0")
}
