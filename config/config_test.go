package config_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/faults"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/container"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
	"github.com/idemcheck/idemcheck/targets/webhook/webhookconfig"
)

func ptr[T any](v T) *T { return &v }

// public copies the exported fields of f, which is what callers see and
// what tests compare (the unexported positions differ between two parses).
func public(f *config.File) config.File {
	return config.File{
		Version: f.Version,
		Seed:    f.Seed,
		Fakes:   f.Fakes,
		Targets: f.Targets,
		Checks:  f.Checks,
		Faults:  f.Faults,
		Retry:   f.Retry,
	}
}

// validFile is what testdata/valid.yaml must parse into, defaults applied.
func validFile() config.File {
	return config.File{
		Version: 1,
		Seed:    ptr(uint64(42)),
		Fakes: config.Fakes{
			"payments": &payments.Settings{HonourKeys: ptr(true)},
			"email":    &email.Settings{HonourKeys: ptr(false)},
			"webhooks": &webhooks.Settings{HonourKeys: ptr(true), KeyHeader: "X-Delivery-Key"},
		},
		Targets: []config.Target{
			&httpconfig.Section{
				Common: section.Common{
					Name: "shop", Kind: "http",
					Identity: config.Locator{JSON: "data.id"},
					Timeout:  config.Duration(2 * time.Second),
				},
				Fields: httpconfig.Fields{
					URL:       "http://127.0.0.1:{{port}}/api",
					KeyHeader: "X-Idempotency-Key",
					Effect:    config.Locator{Header: "X-Effect"},
					DryRun:    &config.DryRun{Query: "dry_run", Value: "true"},
					Operations: []config.Operation{
						{
							Name:     "charge",
							Mutating: ptr(true),
							Method:   "POST",
							Path:     "/charges",
							Headers:  map[string]string{"Content-Type": "application/json"},
							Body:     `{"amount": {{input.amount}}, "currency": "{{input.currency}}", "customer": "{{input.customer}}", "description": "{{marker}}"}`,
							Inputs: map[string]config.Input{
								"amount":   {Int: []int{100, 5000}},
								"currency": {Choice: []string{"eur", "usd"}},
								"customer": {String: &config.StringGen{Prefix: "cus_", Length: 8}},
							},
						},
						{
							Name:     "refund",
							Mutating: ptr(true),
							Method:   "POST",
							Path:     "/charges/{{input.charge}}/refunds?ref={{marker}}",
							Inputs: map[string]config.Input{
								"charge": {String: &config.StringGen{Prefix: "ch_", Length: 12}},
							},
							DryRun:   &config.DryRun{Header: "X-Dry-Run", Value: "1"},
							Effect:   &config.Locator{JSON: "result.effect"},
							Identity: &config.Locator{JSON: "result.id"},
						},
						{
							Name:     "get-charge",
							Mutating: ptr(false),
							Method:   "GET",
							Path:     "/charges/{{marker}}",
						},
					},
				},
				Start: &config.Start{
					Command: []string{"go", "run", "./examples/shop", "--addr", "127.0.0.1:{{port}}", "--state", "{{ state_dir }}"},
					Env:     map[string]string{"PAYMENTS_URL": "{{fakes.payments.url}}"},
					Dir:     "../examples",
					Ready:   config.Ready{Path: "/healthz", Timeout: config.Duration(10 * time.Second)},
				},
			},
			&httpconfig.Section{
				Common: section.Common{
					Name: "mailer.staging", Kind: "http",
					Identity: config.Locator{JSON: "data.id"},
					Timeout:  config.Duration(10 * time.Second),
				},
				Fields: httpconfig.Fields{
					URL:       "https://mailer.staging.example.com",
					KeyHeader: "Idempotency-Key",
					Effect:    config.Locator{JSON: "effect"},
					Operations: []config.Operation{
						{
							Name:     "send",
							Mutating: ptr(true),
							Method:   "PUT",
							Path:     "/emails/{{key}}",
							Headers:  map[string]string{"X-Trace": "{{marker}}"},
						},
					},
				},
				Remote: true,
				Limits: &section.Limits{Requests: httptarget.DefaultRemoteLimits.Requests, PerSecond: httptarget.DefaultRemoteLimits.PerSecond},
			},
			&clitarget.Section{
				Common: section.Common{
					Name: "orders", Kind: "cli",
					Identity: config.Locator{JSON: "data.id"},
					Timeout:  config.Duration(3 * time.Second),
				},
				Program: section.Program{
					Command: []string{"./ordertool", "--store", "jsonl", "--port", "{{port}}"},
					Env: map[string]string{
						"STATE_DIR": "{{state_dir}}",
						"EMAIL_URL": "{{fakes.email.url}}",
					},
					Dir: "../examples",
				},
				KeyFlag:        "--request-id",
				DryRunFlag:     ptr(""),
				RetryExitCodes: []int{75, 69},
				Effect:         config.Locator{JSON: "result.effect"},
				Operations: []clitarget.OperationSection{
					{
						Name:     "send-email",
						Mutating: ptr(true),
						Args:     []string{"send-email", "--to", "{{input.to}}", "--memo", "receipt {{marker}}", "--ref", "{{key}}"},
						Inputs: map[string]config.Input{
							"to": {Choice: []string{"ann@example.test", "bob@example.test"}},
						},
					},
					{
						Name:     "get-order",
						Mutating: ptr(false),
						Args:     []string{"get-order", "--id", "{{marker}}"},
					},
				},
			},
			&webhookconfig.Section{
				Common: section.Common{
					Name: "payment-events", Kind: "webhook",
					Identity: config.Locator{JSON: "id"},
					Timeout:  config.Duration(5 * time.Second),
				},
				URL: "http://127.0.0.1:{{port}}",
				Start: &config.Start{
					Command: []string{"./webhooks", "--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"},
					Ready:   config.Ready{Path: "/healthz", Timeout: config.Duration(config.DefaultReadyTimeout)},
				},
				Signature: &webhookconfig.SignatureSection{Secret: "whsec_valid_yaml", Header: "X-Hub-Signature-256", Scheme: "hex", Prefix: "sha256="},
				IDHeader:  "X-GitHub-Delivery",
				Events: []webhookconfig.EventSection{
					{
						Name:    "invoice.due",
						Path:    "/webhooks/{{input.account}}",
						Headers: map[string]string{"X-Event-Type": "invoice.due", "X-Created": "{{created}}"},
						Body:    `{"id":"{{key}}","created":{{created}},"data":{"amount":{{input.amount}},"description":"invoice {{marker}}"}}`,
						Inputs: map[string]config.Input{
							"account": {Choice: []string{"acct_1", "acct_2"}},
							"amount":  {Int: []int{100, 9999}},
						},
					},
					{Name: "ping", Safe: true, Path: "/webhooks/ping", Body: `{"trace":"{{marker}}"}`},
				},
			},
			&container.Section{
				Common: section.Common{
					Name: "shop-in-docker", Kind: "container",
					Identity: config.Locator{JSON: "data.id"},
					Timeout:  config.Duration(10 * time.Second),
				},
				Fields: httpconfig.Fields{
					URL:       container.DefaultURL,
					KeyHeader: "X-Idempotency-Key",
					Effect:    config.Locator{JSON: "effect"},
					DryRun:    &config.DryRun{Header: "X-Dry-Run", Value: "true"},
					Operations: []config.Operation{
						{Name: "create-order", Mutating: ptr(true), Method: "POST", Path: "/orders", Body: `{"memo":"order {{marker}}"}`},
					},
				},
				Build: &container.BuildSection{Binary: "./bin/shop", Name: "idemcheck/shop", Tag: "test"},
				Cmd:   []string{"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"},
				Env: map[string]string{
					"SMTP_ADDR": "{{fakes.email.smtp}}",
					"HOOKS_URL": "{{fakes.webhooks.url}}",
				},
				User:  "1000:1000",
				Ready: &config.Ready{Path: "/healthz", Timeout: config.Duration(30 * time.Second)},
			},
			&container.Section{
				Common: section.Common{
					Name: "legacy-in-docker", Kind: "container",
					Identity: config.Locator{JSON: "data.id"},
					Timeout:  config.Duration(10 * time.Second),
				},
				Fields: httpconfig.Fields{
					URL:       "http://localhost:8080",
					KeyHeader: "Idempotency-Key",
					Effect:    config.Locator{JSON: "effect"},
					Operations: []config.Operation{
						{Name: "charge", Mutating: ptr(true), Method: "POST", Path: "/charges?memo={{marker}}"},
					},
				},
				Image: "registry.example.com:5000/team/legacy:2.1",
				Port:  "8080",
				Ready: &config.Ready{Path: "/", Timeout: config.Duration(config.DefaultReadyTimeout)},
			},
		},
		Checks: config.Checks{Skip: []string{"dryrun"}},
		Faults: []config.FaultSpec{
			{Name: "lost-response"},
			{Name: "client-timeout", Settings: map[string]any{"timeout": "300ms"}},
		},
		Retry: config.Retry{MaxAttempts: 8, Backoff: config.Duration(20 * time.Millisecond), StuckWait: config.Duration(config.DefaultStuckWait), Burst: config.DefaultBurst},
	}
}

func TestLoadValidFile(t *testing.T) {
	f, err := config.Load("testdata/valid.yaml")
	require.NoError(t, err)
	assert.Equal(t, validFile(), public(f))
	assert.Equal(t, "testdata/valid.yaml", f.Source())
}

// Writing a parsed File back as YAML and parsing that again gives the same
// File: the YAML form of every type (durations, faults) is the one read.
func TestParsedFileRoundTrips(t *testing.T) {
	f, err := config.Load("testdata/valid.yaml")
	require.NoError(t, err)
	out, err := yaml.Marshal(f)
	require.NoError(t, err)
	again, err := config.Parse("again.yaml", out)
	require.NoError(t, err, "re-parsing:\n%s", out)
	assert.Equal(t, public(f), public(again))
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := config.Load(path)
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, path+": cannot read the configuration: no such file or directory", err.Error())
}

func TestLoadReportsFileName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "idemcheck.yaml")
	require.NoError(t, os.WriteFile(path, []byte("version: 2\n"), 0o600))
	_, err := config.Load(path)
	var e *config.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, path, e.File)
}

// minimal is a valid file for the rows below to break one way at a time.
// Line numbers in the rows refer to their own text.
const minimal = `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - name: charge
        mutating: true
        method: POST
        path: /charges
        body: '{"description": "{{marker}}"}'
`

// TestKeyFormats: the named formats and templates are accepted as written.
func TestKeyFormats(t *testing.T) {
	for _, format := range []string{"uuid", "token", `"order-{{hex 16}}"`, `"{{uuid}}"`} {
		f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimal, "    url: http://127.0.0.1:8080\n", "    url: http://127.0.0.1:8080\n    key_format: "+format+"\n", 1)))
		require.NoError(t, err, format)
		assert.Equal(t, strings.Trim(format, `"`), f.Targets[0].Base().KeyFormat)
	}
}

func TestMinimalIsValid(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimal))
	require.NoError(t, err)
	assert.Equal(t, config.DefaultKeyHeader, httpAt(t, f, 0).KeyHeader)
	assert.Len(t, f.Faults, len(config.Builtin().DefaultFaults), "no faults section means the default faults")
	assert.Equal(t, config.DefaultMaxAttempts, f.Retry.MaxAttempts)
	assert.Equal(t, config.DefaultBackoff, f.Retry.Backoff.Std())
}

// want is one expected error: its position, its path and a part of its
// message.
type want struct {
	line, col int
	path      string
	msg       string
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want []want
	}{
		{
			why: "a misspelt field is reported at its key, with a suggestion and the fields that exist",
			yaml: `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - name: charge
        mutating: true
        methdo: POST
        method: POST
        path: /charges/{{marker}}
`,
			want: []want{{9, 9, "targets[0].operations[0].methdo",
				`unknown field "methdo" (did you mean "method"? known fields: name, mutating, method, path, headers, body, inputs, dry_run, effect, identity)`}},
		},
		{
			why: "a setting of the whole file written under a target says to move it up",
			yaml: `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    bursts: {count: 40}
    operations:
      - {name: charge, mutating: true, method: POST, path: "/charges/{{marker}}"}
`,
			want: []want{{6, 5, "targets[0].bursts", "bursts is a setting of the whole file, not of one target: move it to the top level, beside targets:"}},
		},
		{
			why: "a value of the wrong type says what was expected and what was seen",
			yaml: minimal + `retry:
  max_attempts: abc
`,
			want: []want{{13, 17, "retry.max_attempts", `expected an integer, got string "abc"`}},
		},
		{
			why:  "a boolean written as yes is a string in YAML 1.2, and is refused rather than guessed; no 'missing' follows the type error",
			yaml: strings.Replace(minimal, "mutating: true", "mutating: yes", 1),
			want: []want{{8, 19, "targets[0].operations[0].mutating", `expected a boolean (true or false), got string "yes"`}},
		},
		{
			why: "required fields that are absent are reported where their parent starts",
			yaml: `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - name: charge
        body: '{{marker}}'
`,
			want: []want{
				{7, 9, "targets[0].operations[0].mutating", "missing: say whether the operation changes state"},
				{7, 9, "targets[0].operations[0].method", "missing: one of GET, POST, PUT, PATCH, DELETE"},
				{7, 9, "targets[0].operations[0].path", "missing: the request path"},
			},
		},
		{
			why:  "an empty file lacks the two required top-level fields",
			yaml: "",
			want: []want{
				{1, 1, "version", "missing: add `version: 1`"},
				{1, 1, "targets", "missing: list at least one target"},
			},
		},
		{
			why:  "an unknown method lists the methods",
			yaml: strings.Replace(minimal, "method: POST", "method: PSOT", 1),
			want: []want{{9, 17, "targets[0].operations[0].method", `unknown method "PSOT" (expected one of GET, POST, PUT, PATCH, DELETE)`}},
		},
		{
			why:  "a lower-case method gets a hint instead of a silent fix",
			yaml: strings.Replace(minimal, "method: POST", "method: post", 1),
			want: []want{{9, 17, "targets[0].operations[0].method", `write it in upper case: "POST"`}},
		},
		{
			why:  "a duration without a unit is refused, since seconds and milliseconds are both plausible",
			yaml: strings.Replace(minimal, "    operations:", "    timeout: 10\n    operations:", 1),
			want: []want{{6, 14, "targets[0].timeout", `expected a duration such as "250ms" or "10s", got integer 10`}},
		},
		{
			why:  "a malformed duration says how to write one",
			yaml: strings.Replace(minimal, "    operations:", "    timeout: 10 seconds\n    operations:", 1),
			want: []want{{6, 14, "targets[0].timeout", `invalid duration "10 seconds": write a number and a unit`}},
		},
		{
			why:  "an input placeholder must name a declared input, and the error lists the declared ones",
			yaml: strings.Replace(minimal, "path: /charges", "path: /charges/{{input.amuont}}\n        inputs: {amount: {int: [1, 9]}, currency: {choice: [eur, usd]}}", 1),
			want: []want{{10, 15, "targets[0].operations[0].path",
				`{{input.amuont}} uses input "amuont", which this operation does not declare (did you mean "amount"? declared inputs: amount, currency)`}},
		},
		{
			why:  "an unknown placeholder lists the ones allowed where it is used",
			yaml: strings.Replace(minimal, "path: /charges", "path: /charges/{{port}}", 1),
			want: []want{{10, 15, "targets[0].operations[0].path", "unknown placeholder {{port}} (allowed here: key, marker, input.NAME for a declared input)"}},
		},
		{
			why:  "operation placeholders are not allowed at target level either",
			yaml: strings.Replace(minimal, "url: http://127.0.0.1:8080", "url: http://127.0.0.1:8080/{{marker}}", 1),
			want: []want{{5, 10, "targets[0].url", "unknown placeholder {{marker}} (allowed here: port, state_dir, replica)"}},
		},
		{
			why: "the payments fake's URL needs the payments fake, and the error says how to add it",
			yaml: strings.Replace(minimal, "    operations:", `    start:
      command: [./shop]
      env: {PAYMENTS: "{{fakes.payments.url}}"}
    operations:`, 1),
			want: []want{{8, 23, "targets[0].start.env.PAYMENTS", "add `fakes: {payments: {}}`"}},
		},
		{
			why:  "a target off this machine needs allow_remote, because idemcheck misbehaves on purpose",
			yaml: strings.Replace(minimal, "http://127.0.0.1:8080", "https://api.example.com", 1),
			want: []want{{5, 10, "targets[0].url", `host "api.example.com" is not a loopback address`}},
		},
		{
			why:  "{{port}} is only known for a target the harness starts",
			yaml: strings.Replace(minimal, "127.0.0.1:8080", "127.0.0.1:{{port}}", 1),
			want: []want{{5, 10, "targets[0].url", "uses {{port}}, but the target has no start command"}},
		},
		{
			why: "a target started on {{port}} is not reached at a fixed port",
			yaml: strings.Replace(minimal, "    operations:", `    start:
      command: [./shop, --listen, "127.0.0.1:{{port}}"]
    operations:`, 1),
			want: []want{{5, 10, "targets[0].url", `"http://127.0.0.1:8080" does not use {{port}}, but the start command (or its environment) is given {{port}}`}},
		},
		{
			why: "target names and operation names are unique; the error points at the second and names the first",
			yaml: minimal + `      - name: charge
        mutating: false
        method: GET
        path: /charges/{{marker}}
  - name: shop
    kind: http
    url: http://[::1]:8080
    operations:
      - name: list
        mutating: false
        method: GET
        path: /x/{{marker}}
`,
			want: []want{
				{12, 15, "targets[0].operations[1].name", `duplicate operation name "charge" (already used by operations[0] at line 7)`},
				{16, 11, "targets[1].name", `duplicate target name "shop" (already used by targets[0] at line 3)`},
			},
		},
		{
			why:  "only and skip contradict each other",
			yaml: minimal + "checks:\n  only: [retry.sequential]\n  skip: [dryrun]\n",
			want: []want{{13, 3, "checks", "set only or skip, not both"}},
		},
		{
			why:  "a check id is checked against KnownChecks, with a suggestion",
			yaml: minimal + "checks:\n  only: [retry.sequental]\n",
			want: []want{{13, 10, "checks.only[0]", `unknown check "retry.sequental" (did you mean "retry.sequential"? known checks: retry.sequential,`}},
		},
		{
			why:  "a fault name is checked against the fault registry, in both forms",
			yaml: minimal + "faults:\n  - lost_response\n  - {name: client-timeuot, timeout: 1s}\n",
			want: []want{
				{13, 5, "faults[0]", `unknown fault "lost_response" (did you mean "lost-response"? known faults: 503-before, broker-batch-crash, broker-duplicate-publish, broker-duplicate-publish-dedup, broker-late-ack, broker-lost-ack, broker-rebalance, broker-reorder, broker-slow-consumer, client-disconnect, client-timeout, crash-after-commit, crash-after-effect, crash-after-reply, crash-before-commit, crash-before-effect, dep-error, dep-refuse, dep-reset-after-commit, dep-stall, downstream-503, downstream-503-after, downstream-reset-after, downstream-timeout-after, hang, latency, lost-response, reset)`},
				{14, 12, "faults[1].name", `unknown fault "client-timeuot" (did you mean "client-timeout"?`},
			},
		},
		{
			why:  "a fault mapping needs a name",
			yaml: minimal + "faults:\n  - {timeout: 1s}\n",
			want: []want{{13, 5, "faults[0].name", "missing: name the fault"}},
		},
		{
			why:  "an operation must carry the marker, or its effects cannot be attributed",
			yaml: strings.Replace(minimal, `'{"description": "{{marker}}"}'`, `'{"description": "x"}'`, 1),
			want: []want{{7, 9, "targets[0].operations[0]", `mutating operation "charge" does not use {{marker}}`}},
		},
		{
			why: "an empty path (a starter's TODO) and no marker anywhere are said at once",
			yaml: strings.Replace(strings.Replace(minimal, `'{"description": "{{marker}}"}'`, `'{"description": "x"}'`, 1),
				"path: /charges", `path: ""`, 1),
			want: []want{
				{7, 9, "targets[0].operations[0]", `mutating operation "charge" does not use {{marker}}`},
				{10, 15, "targets[0].operations[0].path", "must not be empty"},
			},
		},
		{
			why:  "so must a safe operation, so that an accidental effect is caught",
			yaml: minimal + "      - name: list\n        mutating: false\n        method: GET\n        path: /charges\n",
			want: []want{{12, 9, "targets[0].operations[1]", `safe operation "list" does not use {{marker}}`}},
		},
		{
			why:  "a key written twice would silently lose one value",
			yaml: minimal + "version: 1\n",
			want: []want{{12, 1, "version", `duplicate key "version" (first at line 1)`}},
		},
		{
			why:  "a second document would be silently ignored",
			yaml: minimal + "---\nversion: 1\n",
			want: []want{{12, 1, "", "a second YAML document starts here"}},
		},
		{
			why:  "an alias that contains itself is refused, not followed forever",
			yaml: minimal + "checks: &c\n  only: *c\n",
			want: []want{{13, 9, "checks.only", "alias *c refers to a value that contains the alias itself"}},
		},
		{
			why:  "the top level must be a mapping; nothing else is reported",
			yaml: "- version: 1\n",
			want: []want{{1, 1, "", "expected a mapping, got a list"}},
		},
		{
			why: "inputs need exactly one generator, and each generator has its limits",
			yaml: strings.Replace(minimal, "path: /charges", `path: /charges/{{input.a}}{{input.b}}{{input.c}}{{input.d}}{{input.e}}
        inputs:
          a: {}
          b: {int: [1, 2], choice: [x, y]}
          c: {int: [9, 1]}
          d: {choice: [x, x]}
          e: {string: {length: 65}}`, 1),
			want: []want{
				{12, 14, "targets[0].operations[0].inputs.a", "missing: say how to generate the input"},
				{13, 14, "targets[0].operations[0].inputs.b", "set only one of int, choice and string, not int and choice"},
				{14, 20, "targets[0].operations[0].inputs.c.int", "min 9 is greater than max 1"},
				{15, 23, "targets[0].operations[0].inputs.d.choice", "needs at least two different values"},
				{16, 32, "targets[0].operations[0].inputs.e.string.length", "65 is out of range: use 1 to 64"},
			},
		},
		{
			why:  "dry_run says how, exactly one way",
			yaml: strings.Replace(minimal, "    operations:", "    dry_run: {query: dry, header: X-Dry}\n    operations:", 1),
			want: []want{{6, 14, "targets[0].dry_run", "set query or header, not both"}},
		},
		{
			why:  "retry limits are checked",
			yaml: minimal + "retry: {max_attempts: 1, backoff: -1s}\n",
			want: []want{
				{12, 23, "retry.max_attempts", "1 is out of range: use 2 to 50"},
				{12, 35, "retry.backoff", "must not be negative"},
			},
		},
		{
			why:  "a key format with too few random bits is refused at its value, with the formats to write",
			yaml: strings.Replace(minimal, "    url: http://127.0.0.1:8080\n", "    url: http://127.0.0.1:8080\n    key_format: \"ord-{{hex 4}}\"\n", 1),
			want: []want{{6, 17, "targets[0].key_format", `at least 64`}},
		},
		{
			why:  "an unknown key format placeholder is named",
			yaml: strings.Replace(minimal, "    url: http://127.0.0.1:8080\n", "    url: http://127.0.0.1:8080\n    key_format: \"{{ulid}}\"\n", 1),
			want: []want{{6, 17, "targets[0].key_format", `unknown placeholder {{ulid}}: expected {{hex N}} or {{uuid}}`}},
		},
		{
			why:  "version must be 1",
			yaml: strings.Replace(minimal, "version: 1", "version: 2", 1),
			want: []want{{1, 10, "version", "unsupported version 2: this idemcheck reads version 1"}},
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
				assert.Equal(t, "idemcheck.yaml", e.File)
				assert.Equal(t, w.path, e.Path, "error %d: %v", i, e)
				assert.Equal(t, []int{w.line, w.col}, []int{e.Line, e.Column}, "error %d: %v", i, e)
				assert.Contains(t, e.Msg, w.msg, "error %d", i)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		why  string
		err  config.Error
		want string
	}{
		{"the full form", config.Error{File: "a.yaml", Line: 3, Column: 5, Path: "version", Msg: "bad"}, "a.yaml:3:5: version: bad"},
		{"an unknown column is left out", config.Error{File: "a.yaml", Line: 3, Msg: "bad"}, "a.yaml:3: bad"},
		{"whole-file errors have no path", config.Error{File: "a.yaml", Line: 1, Column: 1, Msg: "bad"}, "a.yaml:1:1: bad"},
		{"Parse may be given no name", config.Error{Line: 2, Column: 1, Path: "x", Msg: "bad"}, ":2:1: x: bad"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
		})
	}
}

func TestSyntaxErrorHasLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		why       string
		yaml      string
		line, col int
	}{
		{"a scanner error: yaml.v3 counts its lines from 1; the column is the second colon", "version: 1\nx: a: b\n", 2, 5},
		{"a parser error: yaml.v3 counts its lines from 0, Parse corrects that", "version: 1\nretry:\n  a: 1\n b: 2\n", 4, 2},
		{"an unclosed flow mapping is reported where it opens", "version: 1\n\n\nx: {a: 1\n", 4, 4},
		{"a bad indent is reported at the start of the list it breaks", "version: 1\ntargets:\n  - name: x\n   kind: http\n", 3, 3},
		{"yaml.v3 names no line for errors on line 1", "version: : 1\n", 1, 10},
		{"an unclosed flow list is reported where it opens", "version: 1\nfaults: [reset, hang\n", 2, 9},
		{"an unknown escape in a double-quoted string", "version: 1\nseed: \"a\\qb\"\n", 2, 9},
		{"a character that cannot start a token", "version: 1\nx: @b\n", 2, 4},
		{"a tab that cannot start a token", "version: 1\n\tx: 1\n", 2, 1},
		{"yaml.v3 gives no position for a control character; Parse finds it", "version: 1\nx: \x01\n", 2, 4},
		{"yaml.v3 gives no position for an unknown alias; Parse finds it", "version: 1\nretry: *nope\n", 2, 8},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, 1, "a syntax error is reported alone: %v", err)
			assert.Equal(t, []int{tc.line, tc.col}, []int{errs[0].Line, errs[0].Column}, "%v", errs[0])
			assert.Contains(t, errs[0].Msg, "invalid YAML: ")
		})
	}
}

// Every problem in a file is reported in one go, sorted by line, although
// the decoder and the validator find them in a different order.
func TestParseReportsAllErrorsSorted(t *testing.T) {
	const bad = `version: 3
targets:
  - name: Shop
    kind: grpc
    url: http://10.0.0.1
    timeout: soon
    operations:
      - name: charge
        mutating: true
        method: PSOT
        path: charges/{{marker}}
retry:
  max_attempts: many
`
	_, err := config.Parse("idemcheck.yaml", []byte(bad))
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, strings.Join([]string{
		`idemcheck.yaml:1:10: version: unsupported version 3: this idemcheck reads version 1`,
		`idemcheck.yaml:3:11: targets[0].name: invalid name "Shop": use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`,
		`idemcheck.yaml:4:11: targets[0].kind: unsupported kind "grpc" (supported kinds: http, cli, webhook, container, mcp, consumer)`,
		`idemcheck.yaml:6:14: targets[0].timeout: invalid duration "soon": write a number and a unit (ns, us, ms, s, m, h), such as "250ms" or "10s"`,
		`idemcheck.yaml:10:17: targets[0].operations[0].method: unknown method "PSOT" (expected one of GET, POST, PUT, PATCH, DELETE)`,
		`idemcheck.yaml:11:15: targets[0].operations[0].path: must start with "/", got "charges/{{marker}}"`,
		`idemcheck.yaml:13:17: retry.max_attempts: expected an integer, got string "many"`,
	}, "\n"), err.Error())
	var first *config.Error
	require.ErrorAs(t, err, &first, "errors.As reaches each *Error")
	assert.Equal(t, 1, first.Line)
}

// jitterTimeout is a client-timeout of a program's own, with a setting
// the builtin one does not take.
type jitterTimeout struct {
	faults.ClientTimeout
	Jitter struct{ Min, Max int } `json:"jitter"`
}

// withJitter is the builtin registry with client-timeout replaced by a
// program's own, which takes a nested setting.
func withJitter() *config.Registry {
	r := config.Builtin()
	r.Faults = faults.Builtin()
	r.Faults.Register(faults.NameClientTimeout, func() faults.Fault { return &jitterTimeout{} })
	return r
}

func TestFaultSettings(t *testing.T) {
	f, err := withJitter().Parse("idemcheck.yaml", []byte(minimal+`faults:
  - 503-before
  - name: client-timeout
    timeout: 300ms
    jitter: {min: 1, max: 5}
  - []
`))
	require.Error(t, err, "a list is neither form of a fault")
	assert.Nil(t, f)
	assert.Equal(t, "idemcheck.yaml:17:5: faults[2]: expected a fault name, or a mapping such as {name: client-timeout, timeout: 300ms}, got a list", err.Error())

	f, err = withJitter().Parse("idemcheck.yaml", []byte(minimal+`faults:
  - 503-before
  - name: client-timeout
    timeout: 300ms
    jitter: {min: 1, max: 5}
`))
	require.NoError(t, err)
	assert.Equal(t, []config.FaultSpec{
		{Name: "503-before"},
		{Name: "client-timeout", Settings: map[string]any{
			"timeout": "300ms",
			"jitter":  map[string]any{"min": 1, "max": 5},
		}},
	}, f.Faults, "settings are kept as YAML decodes them, for the fault registry")

	e := f.Errorf("faults[1].timeout", "must be below the target's timeout")
	assert.Equal(t, "idemcheck.yaml:15:14: faults[1].timeout: must be below the target's timeout", e.Error(),
		"a later consumer reports a setting at its position")
	e = f.Errorf("faults[1].retries", "missing: say how often")
	assert.Equal(t, 14, e.Line, "a setting that is not written is reported at its fault")

	_, err = config.Parse("idemcheck.yaml", []byte(minimal+`faults:
  - name: client-timeout
    timeout: 300ms
    jitter: {min: 1, max: 5}
`))
	require.Error(t, err, "the builtin client-timeout takes no jitter")
	assert.Equal(t, "idemcheck.yaml:15:13: faults[0].jitter: unknown setting (client-timeout takes timeout)", err.Error())
}

// badFaults are faults whose settings the faults cannot use, and a fault
// listed twice, with the errors Parse reports about them.
const badFaults = `faults:
  - {name: dep-stall, delay: 500}
  - name: dep-error
    code: 99
  - {name: client-timeout, timout: 1s}
  - {name: dep-refuse, window: -1s}
  - {name: latency, delay: 2s}
  - {name: latency, delay: 1s}
`

var badFaultsErrors = []string{
	`idemcheck.yaml:13:30: faults[0].delay: expected a duration such as "250ms" or "10s", got integer 500`,
	`idemcheck.yaml:15:11: faults[1].code: expected a string, got integer 99`,
	`idemcheck.yaml:16:36: faults[2].timout: unknown setting (client-timeout takes timeout)`,
	`idemcheck.yaml:17:32: faults[3].window: must be above zero, got -1s`,
	`idemcheck.yaml:19:5: faults[5]: latency is listed already (faults[4]): each fault runs once for each operation, so only one of them would run; keep the one with the settings you want`,
}

// errorLines are the errors of err, which must be config.Errors, one
// string each.
func errorLines(t *testing.T, err error) []string {
	t.Helper()
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	return got
}

// TestFaultSettingErrorsNameTheSetting: a setting the fault cannot use is
// reported at its own line, in words a configuration's author reads (a
// bare number is no duration; a code is a string), and a fault listed
// twice is refused rather than run once without a word; by Parse, with
// the file's other problems.
func TestFaultSettingErrorsNameTheSetting(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimal+badFaults))
	require.Error(t, err)
	assert.Nil(t, f)
	assert.Equal(t, badFaultsErrors, errorLines(t, err))
}

// TestEveryBadFaultIsReported: an unknown fault's name hides nothing
// else of the faults list (a setting of a later entry, a second unknown
// name, a fault listed twice), nor does a problem elsewhere in the file:
// every one is reported at once, each at its line and column with its
// path, whatever entries the schema refused before it.
func TestEveryBadFaultIsReported(t *testing.T) {
	src := strings.Replace(minimal, `'{"description": "{{marker}}"}'`, `'{"description": "x"}'`, 1) + `faults:
  - dep-eror
  - {name: dep-stall, delay: 500}
  - {name: lost-respons, status: 504}
  - {name: client-timeout, timout: 1s}
  - {name: dep-refuse, window: -1s}
  - lost_response
  - {name: latency, delay: 2s}
  - {name: latency, delay: 1s}
retry: {max_attempts: 99}
`
	f, err := config.Parse("idemcheck.yaml", []byte(src))
	require.Error(t, err)
	assert.Nil(t, f)
	got := errorLines(t, err)
	want := []string{
		`idemcheck.yaml:7:9: targets[0].operations[0]: mutating operation "charge" does not use {{marker}}`,
		`idemcheck.yaml:13:5: faults[0]: unknown fault "dep-eror" (did you mean "dep-error"?`,
		`idemcheck.yaml:14:30: faults[1].delay: expected a duration such as "250ms" or "10s", got integer 500`,
		`idemcheck.yaml:15:12: faults[2].name: unknown fault "lost-respons" (did you mean "lost-response"?`,
		`idemcheck.yaml:16:36: faults[3].timout: unknown setting (client-timeout takes timeout)`,
		`idemcheck.yaml:17:32: faults[4].window: must be above zero, got -1s`,
		`idemcheck.yaml:18:5: faults[5]: unknown fault "lost_response" (did you mean "lost-response"?`,
		`idemcheck.yaml:20:5: faults[7]: latency is listed already (faults[6]): each fault runs once for each operation, so only one of them would run; keep the one with the settings you want`,
		`idemcheck.yaml:21:23: retry.max_attempts: 99 is out of range`,
	}
	require.Len(t, got, len(want), "every problem, each once:\n%s", err)
	for i := range want {
		assert.True(t, strings.HasPrefix(got[i], want[i]), "error %d:\n got %s\nwant %s…", i, got[i], want[i])
	}
}

func TestExplicitEmptyFaultsMeansNone(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimal+"faults: []\n"))
	require.NoError(t, err)
	assert.Empty(t, f.Faults)
	assert.NotNil(t, f.Faults)
}

// YAML anchors and merge keys are resolved as yaml.v3 does, so shared
// settings can be written once, under a top-level x- key; errors inside
// them carry the path where they are used and the line where they are
// written.
func TestAnchorsAndMergeKeys(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(`version: 1
x-op: &op
  mutating: true
  method: POST
  body: '{{marker}}'
targets:
  - name: shop
    kind: http
    url: http://localhost:8080
    operations:
      - <<: *op
        name: a
        path: /a
      - <<: *op
        name: b
        path: /b
        method: PUT
`))
	require.NoError(t, err)
	ops := httpAt(t, f, 0).Operations
	require.Len(t, ops, 2)
	assert.Equal(t, []string{"a", "POST", "/a", "{{marker}}"}, []string{ops[0].Name, ops[0].Method, ops[0].Path, ops[0].Body})
	assert.Equal(t, []string{"b", "PUT", "/b", "{{marker}}"}, []string{ops[1].Name, ops[1].Method, ops[1].Path, ops[1].Body}, "a key written beside << wins over the merged one")
	assert.True(t, *ops[1].Mutating)

	var errs config.Errors
	f, err = config.Parse("idemcheck.yaml", []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: http://localhost:8080
    operations:
      - &op
        name: a
        mutating: true
        method: POST
        path: /a
        body: '{{marker}}'
      - <<: *op
        name: b
        method: PSOT
`))
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 1, "%v", err)
	assert.Equal(t, "idemcheck.yaml:15:17: targets[0].operations[1].method: unknown method \"PSOT\" (expected one of GET, POST, PUT, PATCH, DELETE)", errs[0].Error())
	assert.Nil(t, f)

	_, err = config.Parse("idemcheck.yaml", []byte(`version: 1
x-op: &op {mutating: maybe, method: POST, body: '{{marker}}'}
targets:
  - name: shop
    kind: http
    url: http://localhost:8080
    operations:
      - {<<: *op, name: a, path: /a}
      - {<<: *op, name: b, path: /b}
`))
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, `idemcheck.yaml:2:22: targets[0].operations[0].mutating: expected a boolean (true or false), got string "maybe"
idemcheck.yaml:2:22: targets[0].operations[1].mutating: expected a boolean (true or false), got string "maybe"`, err.Error(),
		"a mistake in a shared value is reported for each use, at the line that holds it")
}

// A few aliases can expand a small file enormously ("billion laughs");
// decoding stops at a bound instead of eating the machine.
func TestAliasExpansionIsBounded(t *testing.T) {
	// 100 targets of 100 operations of 100 headers, in a few lines.
	headers := make([]string, 100)
	for i := range headers {
		headers[i] = fmt.Sprintf("h%d: x", i)
	}
	bomb := "version: 1\n" +
		"x-op: &op {name: o, headers: {" + strings.Join(headers, ", ") + "}}\n" +
		"x-ops: &ops [" + strings.Repeat("*op, ", 99) + "*op]\n" +
		"x-target: &t {name: t, operations: *ops}\n" +
		"targets: [" + strings.Repeat("*t, ", 99) + "*t]\n"
	_, err := config.Parse("bomb.yaml", []byte(bomb))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the document expands to more than")
}

func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		why  string
		in   string
		want []string
	}{
		{"no placeholders", "/charges", nil},
		{"in order, as written", "/c/{{input.id}}?m={{marker}}", []string{"input.id", "marker"}},
		{"spaces inside the braces are trimmed", "{{ port }}", []string{"port"}},
		{"a JSON body's braces are not placeholders", `{"a": {"b": "{{key}}"}}`, []string{"key"}},
		{"an unclosed placeholder ends the scan", "{{port}} {{marker", []string{"port"}},
		{"empty braces name nothing", "{{ }}{{key}}", []string{"key"}},
	} {
		t.Run(tc.why, func(t *testing.T) {
			assert.Equal(t, tc.want, config.Placeholders(tc.in))
		})
	}
}

func TestErrorsUnwrap(t *testing.T) {
	errs := config.Errors{{File: "a", Line: 1, Msg: "x"}, {File: "a", Line: 2, Msg: "y"}}
	var e *config.Error
	require.True(t, errors.As(error(errs), &e))
	assert.Equal(t, "x", e.Msg)
	assert.Equal(t, "a:1: x\na:2: y", errs.Error())
}
