package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// requestTarget is a file whose one http target takes extra lines (its
// own fields, indented four spaces) and an operation's extra fields; an
// operation given no path takes "/orders".
func requestTarget(extra, opExtra string) string {
	if !strings.Contains(opExtra, "path:") {
		opExtra += `, path: "/orders"`
	}
	return fmt.Sprintf(`version: 1
targets:
  - name: web
    kind: http
    url: http://127.0.0.1:8080
%s    operations:
      - {name: create, mutating: true, method: POST, body: '{"memo":"{{marker}}"}'%s}
`, extra, opExtra)
}

// TestLoadRefusesWhatWouldBreakARequest: values that reach a request line
// or a header as written, and settings that no run could honour, are
// refused when the file is loaded, with their line, column and field —
// not when the first request is sent, or never.
func TestLoadRefusesWhatWouldBreakARequest(t *testing.T) {
	for _, tc := range []struct {
		why, file, at, want string
	}{
		{"a CR LF in a path would end the request line and start a header of the file's making",
			requestTarget("", `, path: "/orders\r\nX-Injected: 1"`), "7:", `operations[0].path: "/orders\r\nX-Injected: 1" holds a control character`},
		{"a CR LF in a header value would start another header",
			requestTarget("", `, headers: {X-Tenant: "a\r\nX-Injected: 1"}`), "7:", "operations[0].headers.X-Tenant: \"a\\r\\nX-Injected: 1\" holds a control character"},
		{"a caller's header value goes into every one of its requests",
			requestTarget("    callers:\n      - headers: {Authorization: \"Bearer a\\nX: 1\"}\n      - headers: {Authorization: Bearer b}\n", ""), "7:", "callers[0].headers.Authorization"},
		{"the key in Content-Length would make the request malformed",
			requestTarget("    key_header: Content-Length\n", ""), "6:17", "key_header: Content-Length frames the request"},
		{"the key in Host would send the request elsewhere",
			requestTarget("    key_header: host\n", ""), "6:17", "key_header: Host frames the request"},
		{"a dry run's header may not frame the request either",
			requestTarget("    dry_run: {header: Transfer-Encoding}\n", ""), "6:", "dry_run.header: Transfer-Encoding frames the request"},
		{"a rate of .nan made every wait endless, busy-spinning",
			requestTarget("    limits: {per_second: .nan}\n", ""), "6:26", "limits.per_second: expected a finite number, got .nan"},
		{"a rate of .inf is no rate at all",
			requestTarget("    limits: {per_second: .inf}\n", ""), "6:26", "limits.per_second: expected a finite number, got .inf"},
		{"a name of ten thousand characters names nothing a person can read",
			strings.Replace(requestTarget("", ""), "name: web", "name: "+strings.Repeat("w", 10000), 1), "3:", "a name of 10000 characters is too long: keep it to 64"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(tc.file))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "idemcheck.yaml:"+tc.at)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestLoadKeepsWhatARequestMayCarry: the same fields, written as a
// request may carry them, load.
func TestLoadKeepsWhatARequestMayCarry(t *testing.T) {
	for _, tc := range []struct{ why, file string }{
		{"a tab is allowed in a header value", requestTarget("", `, headers: {X-Tenant: "a\tb"}`)},
		{"a query string and a template in a path", requestTarget("", `, path: "/orders/{{input.n}}?dry=0", inputs: {n: {int: [1, 9]}}`)},
		{"a key header of the draft's name, in any case", requestTarget("    key_header: idempotency-key\n", "")},
		{"a finite rate", requestTarget("    limits: {per_second: 2.5}\n", "")},
		{"a name of 64 characters", strings.Replace(requestTarget("", ""), "name: web", "name: "+strings.Repeat("w", 64), 1)},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(tc.file))
			assert.NoError(t, err)
		})
	}
}
