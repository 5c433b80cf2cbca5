package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
)

// minimalMCP is a valid file with one stdio mcp target, for the rows below
// to break one way at a time. Line numbers in the rows refer to their own
// text.
const minimalMCP = `version: 1
fakes: {payments: {}}
targets:
  - name: payments-mcp
    kind: mcp
    command: [./mcpserver, --profile, correct]
    env: {PAYMENTS_URL: "{{fakes.payments.url}}", STATE_DIR: "{{state_dir}}"}
    tools:
      - name: create_payment
        marker: description
        inputs: {amount: {int: [100, 999]}}
        arguments: {currency: usd, note: "order {{marker}}"}
      - name: lookup_payment
        mutating: false
`

func TestMinimalMCP(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimalMCP))
	require.NoError(t, err)
	tg := mcpAt(t, f, 0)
	assert.Equal(t, mcptarget.Kind, tg.Kind)
	assert.Equal(t, []string{"./mcpserver", "--profile", "correct"}, tg.Command)
	require.Len(t, tg.Tools, 2)
	assert.Equal(t, "description", tg.Tools[0].Marker)
	assert.Equal(t, "usd", tg.Tools[0].Arguments["currency"])
	assert.Equal(t, []int{100, 999}, tg.Tools[0].Inputs["amount"].Int)
	require.NotNil(t, tg.Tools[1].Mutating)
	assert.False(t, *tg.Tools[1].Mutating)
	assert.Nil(t, tg.KeyArgument, "absent: guessed from each tool's schema")
	assert.Equal(t, config.Locator{JSON: "effect"}, tg.Effect)
	assert.Equal(t, config.Locator{JSON: "data.id"}, tg.Identity)
}

func TestMCPOverHTTPWithoutTools(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(`version: 1
fakes: {payments: {}}
targets:
  - name: remote-tools
    kind: mcp
    url: "http://127.0.0.1:{{port}}/mcp"
    start: {command: [./mcpserver, --listen, "127.0.0.1:{{port}}"], ready: {path: /healthz}}
    key_meta: idempotency-key
    dry_run_argument: ""
`))
	require.NoError(t, err)
	tg := mcpAt(t, f, 0)
	assert.Equal(t, "idempotency-key", tg.KeyMeta)
	require.NotNil(t, tg.DryRunArgument)
	assert.Equal(t, "", *tg.DryRunArgument, `"" says the tools have no dry run`)
	assert.Empty(t, tg.Tools, "no tools: every tool the server lists")
}

func TestMCPParseErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want []want
	}{
		{
			why:  "an mcp target needs a command or a url",
			yaml: strings.Replace(minimalMCP, "    command: [./mcpserver, --profile, correct]\n", "", 1),
			want: []want{{4, 5, "targets[0].command", "missing: the server: command (a stdio server"}},
		},
		{
			why:  "not both",
			yaml: strings.Replace(minimalMCP, "    tools:", "    url: http://127.0.0.1:1/mcp\n    tools:", 1),
			want: []want{
				{6, 14, "targets[0].command", "set command (a stdio server) or url (a streamable HTTP server), not both"},
				{7, 10, "targets[0].env", "env is for a stdio server (command)"},
			},
		},
		{
			why:  "the key goes in an argument or in _meta, not both",
			yaml: strings.Replace(minimalMCP, "        marker: description\n", "        marker: description\n        key_argument: idempotency_key\n        key_meta: idempotency-key\n", 1),
			want: []want{{12, 19, "targets[0].tools[0].key_meta", "set key_argument (the key is a tool argument) or key_meta (a _meta field), not both"}},
		},
		{
			why:  "a tool needs its name, and names are unique",
			yaml: strings.Replace(minimalMCP, "      - name: lookup_payment\n", "      - name: create_payment\n      - marker: memo\n", 1),
			want: []want{
				{13, 15, "targets[0].tools[1].name", `duplicate tool "create_payment" (already listed as tools[0] at line 9)`},
				{14, 9, "targets[0].tools[2].name", "missing: the tool's name"},
			},
		},
		{
			why:  "fields of other kinds are refused, with what an mcp target has instead",
			yaml: strings.Replace(minimalMCP, "    tools:", "    key_flag: --key\n    operations: []\n    tools:", 1),
			want: []want{
				{8, 15, "targets[0].key_flag", "key_flag is for a cli target; this is an mcp target"},
				{9, 17, "targets[0].operations", "an mcp target lists tools"},
			},
		},
		{
			why:  "a tool's arguments take the intent's placeholders only",
			yaml: strings.Replace(minimalMCP, `note: "order {{marker}}"`, `note: "order {{state_dir}}"`, 1),
			want: []want{{12, 42, "targets[0].tools[0].arguments.note", "unknown placeholder {{state_dir}}"}},
		},
		{
			why:  "a result has no headers",
			yaml: strings.Replace(minimalMCP, "    tools:", "    identity: {header: X-Id}\n    tools:", 1),
			want: []want{{8, 24, "targets[0].identity.header", "a tool result has no headers"}},
		},
	} {
		t.Run(tc.why, func(t *testing.T) {
			f, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Nil(t, f)
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, len(tc.want), "errors:\n%v", err)
			for i, w := range tc.want {
				e := errs[i]
				assert.Equal(t, w.path, e.Path, "error %d: %v", i, e)
				assert.Equal(t, []int{w.line, w.col}, []int{e.Line, e.Column}, "error %d: %v", i, e)
				assert.Contains(t, e.Msg, w.msg, "error %d", i)
			}
		})
	}
}
