package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/harness"
)

// minimalCLI is a valid file with one cli target, for the rows below to
// break one way at a time. Line numbers in the rows refer to their own text.
const minimalCLI = `version: 1
fakes: {payments: {}}
targets:
  - name: orders
    kind: cli
    command: [./ordertool, --store, jsonl]
    env: {PAYMENTS_URL: "{{fakes.payments.url}}", STATE_DIR: "{{state_dir}}"}
    operations:
      - name: create-order
        mutating: true
        args: [create-order, --memo, "order {{marker}}"]
`

func TestMinimalCLIDefaults(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimalCLI))
	require.NoError(t, err)
	tg := cliAt(t, f, 0)
	assert.Equal(t, "--idempotency-key", tg.KeyFlag)
	require.NotNil(t, tg.DryRunFlag)
	assert.Equal(t, "--dry-run", *tg.DryRunFlag)
	assert.Equal(t, []int{75}, tg.RetryExitCodes)
	assert.Equal(t, config.Locator{JSON: "data.id"}, tg.Identity)
	assert.Equal(t, config.Locator{JSON: "effect"}, tg.Effect)
	assert.Equal(t, 10*time.Second, tg.Timeout.Std())
}

// TestCLIConcurrency: concurrency reaches the adapter, which says it to
// the harness (harness.Concurrent), and sets the trials' workers.
func TestCLIConcurrency(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalCLI, "    operations:", "    concurrency: 3\n    operations:", 1)))
	require.NoError(t, err)
	assert.Equal(t, 3, cliAt(t, f, 0).Concurrency)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	require.Len(t, specs, 1)
	var o harness.Options
	for _, opt := range specs[0].Options {
		opt(&o)
	}
	assert.Equal(t, 3, o.TrialWorkers)
}

func TestCLIWithoutDryRun(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalCLI, "    operations:", "    dry_run_flag: \"\"\n    operations:", 1)))
	require.NoError(t, err)
	require.NotNil(t, cliAt(t, f, 0).DryRunFlag)
	assert.Equal(t, "", *cliAt(t, f, 0).DryRunFlag, `"" says the tool has no dry run`)
}

func TestEmailFake(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(
		strings.Replace(minimalCLI, "fakes: {payments: {}}", "fakes: {payments: {}, email: {}}", 1),
		`STATE_DIR: "{{state_dir}}"`, `STATE_DIR: "{{state_dir}}", EMAIL_URL: "{{fakes.email.url}}", SMTP: "{{fakes.email.smtp}}"`, 1)))
	require.NoError(t, err)
	require.IsType(t, &email.Settings{}, f.Fakes["email"])
	mail := f.Fakes["email"].(*email.Settings)
	require.NotNil(t, mail.HonourKeys)
	assert.True(t, *mail.HonourKeys, "honour_keys defaults to true")
}

func TestCLIParseErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want []want
	}{
		{
			why:  "a cli target needs its command",
			yaml: strings.Replace(minimalCLI, "    command: [./ordertool, --store, jsonl]\n", "", 1),
			want: []want{{4, 5, "targets[0].command", "missing: the tool's program and leading arguments"}},
		},
		{
			why:  "mutating: null, as idemcheck init writes it, is reported where it is written",
			yaml: strings.Replace(minimalCLI, "mutating: true", "mutating: null  # TODO: true or false", 1),
			want: []want{{10, 19, "targets[0].operations[0].mutating", "must not be empty: say whether the command changes state"}},
		},
		{
			why:  "an operation of a cli target has args, not method and path",
			yaml: strings.Replace(minimalCLI, "        args: [create-order, --memo, \"order {{marker}}\"]\n", "        method: POST\n        path: /orders/{{marker}}\n", 1),
			want: []want{
				{9, 9, "targets[0].operations[0].args", "missing: the command's arguments"},
				{11, 17, "targets[0].operations[0].method", "method is for http and container targets; this is a cli target (see kind)"},
				{12, 15, "targets[0].operations[0].path", "path is for http and container targets; this is a cli target"},
			},
		},
		{
			why:  "fields of an http target are refused on a cli target",
			yaml: strings.Replace(minimalCLI, "    operations:", "    url: http://127.0.0.1:1\n    key_header: X-Key\n    operations:", 1),
			want: []want{
				{8, 10, "targets[0].url", "url is for http, webhook, container and mcp targets; this is a cli target (see kind)"},
				{9, 17, "targets[0].key_header", "key_header is for http and container targets; this is a cli target"},
			},
		},
		{
			why:  "and cli fields on an http target, with a hint for the start command",
			yaml: strings.Replace(minimal, "    operations:", "    command: [./shop]\n    key_flag: --key\n    operations:", 1),
			want: []want{
				{6, 14, "targets[0].command", "command is for cli and mcp targets; this is an http target (see kind); to have idemcheck start an http target, write start: {command: [...]}"},
				{7, 15, "targets[0].key_flag", "key_flag is for a cli target"},
			},
		},
		{
			why:  "args must carry the marker, or the tool's effects cannot be attributed",
			yaml: strings.Replace(minimalCLI, `"order {{marker}}"`, `"order"`, 1),
			want: []want{{9, 9, "targets[0].operations[0]", `mutating operation "create-order" does not use {{marker}}: put {{marker}} in one of its args`}},
		},
		{
			why:  "args take operation placeholders only",
			yaml: strings.Replace(minimalCLI, `"order {{marker}}"`, `"order {{marker}} {{state_dir}} {{input.n}}"`, 1),
			want: []want{
				{11, 38, "targets[0].operations[0].args[2]", "unknown placeholder {{state_dir}} (allowed here: key, marker, input.NAME for a declared input)"},
				{11, 38, "targets[0].operations[0].args[2]", `{{input.n}} uses input "n", but this operation declares no inputs`},
			},
		},
		{
			why:  "the command takes target placeholders, and a fake's URL needs the fake",
			yaml: strings.Replace(minimalCLI, "--store, jsonl]", "--store, jsonl, \"{{marker}}\", \"{{fakes.email.url}}\"]", 1),
			want: []want{
				{6, 44, "targets[0].command[3]", "unknown placeholder {{marker}} (allowed here: port, state_dir, replica, fakes.payments.url)"},
				{6, 58, "targets[0].command[4]", "{{fakes.email.url}} needs the email fake, which is not configured: add `fakes: {email: {}}`"},
			},
		},
		{
			why:  "only the email fake has an SMTP address",
			yaml: strings.Replace(minimalCLI, `STATE_DIR: "{{state_dir}}"`, `STATE_DIR: "{{state_dir}}", SMTP: "{{fakes.payments.smtp}}"`, 1),
			want: []want{{7, 85, "targets[0].env.SMTP", "unknown placeholder {{fakes.payments.smtp}}"}},
		},
		{
			why:  "flags are written with their dashes, and exit codes are failures",
			yaml: strings.Replace(minimalCLI, "    operations:", "    key_flag: idempotency-key\n    dry_run_flag: \"--dry-run=true\"\n    retry_exit_codes: [75, 0, 300]\n    operations:", 1),
			want: []want{
				{8, 15, "targets[0].key_flag", `"idempotency-key" is not a flag: write it as the tool expects it, with its dashes, such as "--idempotency-key"`},
				{9, 19, "targets[0].dry_run_flag", `invalid flag "--dry-run=true": write the flag's name only`},
				{10, 28, "targets[0].retry_exit_codes[1]", "0 is not an exit code that means failure"},
				{10, 31, "targets[0].retry_exit_codes[2]", "300 is not an exit code that means failure"},
			},
		},
		{
			why:  "concurrency is a number of calls at once",
			yaml: strings.Replace(minimalCLI, "    operations:", "    concurrency: 0\n    operations:", 1),
			want: []want{{8, 18, "targets[0].concurrency", "0 calls at once is out of range: use 1 to 64"}},
		},
		{
			why:  "an empty list of retry exit codes is refused rather than read as none or as the default",
			yaml: strings.Replace(minimalCLI, "    operations:", "    retry_exit_codes: []\n    operations:", 1),
			want: []want{{8, 23, "targets[0].retry_exit_codes", "must not be empty"}},
		},
		{
			why:  "a command's reply has no headers",
			yaml: strings.Replace(minimalCLI, "    operations:", "    identity: {header: X-Id}\n    operations:", 1),
			want: []want{{8, 24, "targets[0].identity.header", "a command's reply has no headers: use json"}},
		},
		{
			why:  "a cli operation cannot override the effect or identity locator",
			yaml: strings.Replace(minimalCLI, "        mutating: true", "        mutating: true\n        identity: {json: id}", 1),
			want: []want{{11, 19, "targets[0].operations[0].identity", "set identity on the target"}},
		},
		{
			why:  "an http operation has no args",
			yaml: strings.Replace(minimal, "        method: POST", "        args: [x]\n        method: POST", 1),
			want: []want{{9, 15, "targets[0].operations[0].args", "args is for a cli target; this is an http target"}},
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
