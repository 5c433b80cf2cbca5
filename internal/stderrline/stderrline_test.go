package stderrline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/internal/stderrline"
)

func TestTellingPicksTheErrorsOwnLine(t *testing.T) {
	for _, tc := range []struct{ name, stderr, want string }{
		{"node: a missing module, then its stack and the runtime's banner", `node:internal/modules/cjs/loader:1080
  throw err;
  ^

Error: Cannot find module '/tmp/tool/orders.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)
    at Module._load (node:internal/modules/cjs/loader:922:27)
    at node:internal/main/run_main_module:23:47 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`, "Error: Cannot find module '/tmp/tool/orders.js'"},
		{"python: a traceback ends with its error", `Traceback (most recent call last):
  File "/tmp/tool.py", line 3, in <module>
    import redis
ModuleNotFoundError: No module named 'redis'
`, "ModuleNotFoundError: No module named 'redis'"},
		{"go: a panic before its goroutines", `panic: runtime error: index out of range [3] with length 3

goroutine 1 [running]:
main.main()
	/tmp/tool/main.go:9 +0x1d
exit status 2
`, "panic: runtime error: index out of range [3] with length 3"},
		{"a plain last line", "starting\ncannot open database\n", "cannot open database"},
		{"only frames: the last line", "    at a (x.js:1:1)\n    at b (x.js:2:2)\n", "at b (x.js:2:2)"},
		{"blank", " \n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, stderrline.Telling(tc.stderr))
		})
	}
}
