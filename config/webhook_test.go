package config_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
	"github.com/idemcheck/idemcheck/targets/webhook/webhookconfig"
)

// minimalWebhook is a valid file with one webhook target, for the rows
// below to break one way at a time. Line numbers in the rows refer to
// their own text.
const minimalWebhook = `version: 1
fakes: {payments: {}}
targets:
  - name: hooks
    kind: webhook
    url: http://127.0.0.1:8080
    signature: {secret: whsec_minimal}
    events:
      - name: invoice.due
        path: /webhooks
        body: '{"id":"{{key}}","memo":"{{marker}}"}'
`

// secret is the signing secret of minimalWebhook, which no error may show.
const secret = "whsec_minimal"

func TestMinimalWebhookDefaults(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimalWebhook))
	require.NoError(t, err)
	tg := webhookAt(t, f, 0)
	assert.Equal(t, &webhookconfig.SignatureSection{Secret: secret, Header: "Idemcheck-Signature", Scheme: "stripe"}, tg.Signature)
	assert.Equal(t, config.Locator{JSON: "data.id"}, tg.Identity)
	assert.Equal(t, 10*time.Second, tg.Timeout.Std())
	assert.Equal(t, []webhookconfig.EventSection{{Name: "invoice.due", Path: "/webhooks", Body: `{"id":"{{key}}","memo":"{{marker}}"}`}}, tg.Events)
}

func TestWebhookEventIDInAHeader(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(
		strings.Replace(minimalWebhook, `"id":"{{key}}",`, "", 1),
		"    events:", "    id_header: webhook-id\n    events:", 1)))
	require.NoError(t, err, "with id_header the body need not carry {{key}}")
	assert.Equal(t, "webhook-id", webhookAt(t, f, 0).IDHeader)
}

func TestUnsignedWebhookNeedsNoSecret(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{scheme: none}", 1)))
	require.NoError(t, err)
	assert.Equal(t, "none", webhookAt(t, f, 0).Signature.Scheme)
}

func TestWebhookParseErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want []want
	}{
		{
			why:  "a misspelt event field is reported at its key, with the fields an event has",
			yaml: strings.Replace(minimalWebhook, "        path: /webhooks", "        path: /webhooks\n        heders: {X-A: b}", 1),
			want: []want{{11, 9, "targets[0].events[0].heders", `unknown field "heders" (did you mean "headers"? known fields: name, safe, path, headers, body, inputs)`}},
		},
		{
			why:  "a misspelt signature field too; the secret is then missing, and said to be",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{secert: whsec_minimal}", 1),
			want: []want{
				{7, 16, "targets[0].signature.secret", "missing: the signing secret the handler shares with idemcheck"},
				{7, 17, "targets[0].signature.secert", `unknown field "secert" (did you mean "secret"? known fields: secret, header, scheme, prefix)`},
			},
		},
		{
			why:  "an unknown scheme lists the known ones",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{secret: whsec_minimal, scheme: hmac}", 1),
			want: []want{{7, 48, "targets[0].signature.scheme", `unknown scheme "hmac" (known schemes: stripe, hex, base64, none)`}},
		},
		{
			why:  "a scheme is suggested when it is a typo",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{secret: whsec_minimal, scheme: base46}", 1),
			want: []want{{7, 48, "targets[0].signature.scheme", `unknown scheme "base46" (did you mean "base64"? known schemes: stripe, hex, base64, none)`}},
		},
		{
			why:  "a signed scheme needs a secret: reported where the signature is when it is not written",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{header: X-Sig}", 1),
			want: []want{{7, 16, "targets[0].signature.secret", "missing: the signing secret the handler shares with idemcheck, written as is; or scheme: none"}},
		},
		{
			why:  "and where it is written when it is empty",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", `{secret: ""}`, 1),
			want: []want{{7, 25, "targets[0].signature.secret", "must not be empty: the signing secret"}},
		},
		{
			why:  "replicas are an http target's: the way to several instances of a handler is said",
			yaml: strings.Replace(minimalWebhook, "    signature: {secret: whsec_minimal}\n", "    signature: {secret: whsec_minimal}\n    replicas: 2\n", 1),
			want: []want{{8, 15, "targets[0].replicas", "replicas is for http and container targets; this is a webhook target (see kind); to see whether several instances of a handler share what they have seen, describe it as an http target whose body carries {{key}}"}},
		},
		{
			why:  "the signature section itself is required: idemcheck signs as a provider does",
			yaml: strings.Replace(minimalWebhook, "    signature: {secret: whsec_minimal}\n", "", 1),
			want: []want{{4, 5, "targets[0].signature", "missing: say how deliveries are signed"}},
		},
		{
			why:  "a prefix only goes with the hex and base64 schemes",
			yaml: strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{secret: whsec_minimal, prefix: sha256=}", 1),
			want: []want{{7, 48, "targets[0].signature.prefix", "a prefix is for the hex and base64 schemes; scheme stripe has none"}},
		},
		{
			why:  "a value of the wrong type says what was expected",
			yaml: strings.Replace(minimalWebhook, "        path: /webhooks", "        safe: yes\n        path: /webhooks", 1),
			want: []want{{10, 15, "targets[0].events[0].safe", `expected a boolean (true or false), got string "yes"`}},
		},
		{
			why:  "a webhook target needs its events",
			yaml: minimalWebhook[:strings.Index(minimalWebhook, "    events:")],
			want: []want{{4, 5, "targets[0].events", "missing: list at least one event the handler receives"}},
		},
		{
			why:  "an event needs its path and its body",
			yaml: strings.Replace(strings.Replace(minimalWebhook, "        path: /webhooks\n", "", 1), `'{"id":"{{key}}","memo":"{{marker}}"}'`, "''", 1),
			want: []want{
				{9, 9, "targets[0].events[0].path", "missing: the handler's endpoint"},
				{10, 15, "targets[0].events[0].body", "must not be empty: the payload, with the event id as {{key}}"},
			},
		},
		{
			why:  "a body without {{key}} would not carry the event id, which is what a handler de-duplicates on",
			yaml: strings.Replace(minimalWebhook, `"id":"{{key}}",`, `"id":"evt_1",`, 1),
			want: []want{{11, 15, "targets[0].events[0].body", `event "invoice.due" does not carry its event id: put {{key}} in its body`}},
		},
		{
			why:  "a body without {{marker}} could not be attributed",
			yaml: strings.Replace(minimalWebhook, `"memo":"{{marker}}"`, `"memo":"x"`, 1),
			want: []want{{9, 9, "targets[0].events[0]", `event "invoice.due" does not use {{marker}}`}},
		},
		{
			why:  "nor could a safe event's; a safe event need not carry an id",
			yaml: strings.Replace(minimalWebhook, `'{"id":"{{key}}","memo":"{{marker}}"}'`, `'{"type":"ping"}'`+"\n        safe: true", 1),
			want: []want{{9, 9, "targets[0].events[0]", `safe event "invoice.due" does not use {{marker}}`}},
		},
		{
			why:  "a body takes the intent's placeholders and {{created}}, not the target's",
			yaml: strings.Replace(minimalWebhook, `"memo":"{{marker}}"`, `"memo":"{{marker}}","at":{{created}},"to":"{{port}}"`, 1),
			want: []want{{11, 15, "targets[0].events[0].body", "unknown placeholder {{port}} (allowed here: key, marker, created, input.NAME for a declared input)"}},
		},
		{
			why:  "the adapter fills in {{created}} in the body and headers only",
			yaml: strings.Replace(minimalWebhook, "path: /webhooks", "path: /webhooks/{{created}}", 1),
			want: []want{{10, 15, "targets[0].events[0].path", "unknown placeholder {{created}} (allowed here: key, marker, input.NAME for a declared input)"}},
		},
		{
			why:  "an input must be declared by its event",
			yaml: strings.Replace(minimalWebhook, `"memo":"{{marker}}"`, `"memo":"{{marker}}","amount":{{input.amount}}`, 1),
			want: []want{{11, 15, "targets[0].events[0].body", `{{input.amount}} uses input "amount", but this event declares no inputs`}},
		},
		{
			why:  "an event's own header would be replaced by the signature",
			yaml: strings.Replace(minimalWebhook, "        path: /webhooks", "        path: /webhooks\n        headers: {idemcheck-signature: x}", 1),
			want: []want{{11, 40, "targets[0].events[0].headers.idemcheck-signature", "idemcheck-signature is set by idemcheck on every delivery: it carries the signature (signature.header); remove it here"}},
		},
		{
			why:  "the event id needs a header of its own",
			yaml: strings.Replace(minimalWebhook, "    events:", "    id_header: Idemcheck-Signature\n    events:", 1),
			want: []want{{8, 16, "targets[0].id_header", `"Idemcheck-Signature" already carries the signature (signature.header)`}},
		},
		{
			why: "event names are unique",
			yaml: minimalWebhook + `      - name: invoice.due
        path: /webhooks
        body: '{"id":"{{key}}","memo":"{{marker}}"}'
`,
			want: []want{{12, 15, "targets[0].events[1].name", `duplicate event name "invoice.due" (already used by events[0] at line 9)`}},
		},
		{
			why:  "fields of an http target are refused, with a hint where they are easily confused",
			yaml: strings.Replace(minimalWebhook, "    events:", "    key_header: X-Key\n    operations: []\n    events:", 1),
			want: []want{
				{8, 17, "targets[0].key_header", "key_header is for http and container targets; this is a webhook target (see kind)"},
				{9, 17, "targets[0].operations", "operations is for http, cli and container targets; this is a webhook target (see kind); a webhook target lists events, each with name, path and body"},
			},
		},
		{
			why:  "the url is an http target's: {{port}} needs a start command",
			yaml: strings.Replace(minimalWebhook, "127.0.0.1:8080", "127.0.0.1:{{port}}", 1),
			want: []want{{6, 10, "targets[0].url", "uses {{port}}, but the target has no start command"}},
		},
		{
			why:  "a handler given {{port}} in its environment listens there, where the url must reach it",
			yaml: strings.Replace(minimalWebhook, "    events:", "    start: {command: [./hooks], env: {PORT: \"{{port}}\"}}\n    events:", 1),
			want: []want{{6, 10, "targets[0].url", "write {{port}} in the URL in place of the port"}},
		},
		{
			why:  "the webhook sink's URL needs the webhook sink",
			yaml: strings.Replace(minimalWebhook, "    events:", "    start: {command: [./hooks, --notify, \"{{fakes.webhooks.url}}\"]}\n    events:", 1),
			want: []want{{8, 42, "targets[0].start.command[2]", "{{fakes.webhooks.url}} needs the webhooks fake, which is not configured: add `fakes: {webhooks: {}}`"}},
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
			assert.NotContains(t, err.Error(), secret, "an error never shows the signing secret")
		})
	}
}

// The signing secret appears in no error, however the signature is wrong,
// and not when a File or Target is printed either.
func TestWebhookSecretIsNeverPrinted(t *testing.T) {
	bad := strings.Replace(minimalWebhook, "{secret: whsec_minimal}",
		"{secret: whsec_minimal, scheme: HEX, header: 'X Sig', prefix: whsec_minimal}", 1)
	_, err := config.Parse("idemcheck.yaml", []byte(bad))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown scheme "HEX"`)
	assert.Contains(t, err.Error(), `invalid header name "X Sig"`)
	assert.NotContains(t, err.Error(), secret)

	_, err = config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalWebhook, "{secret: whsec_minimal}", "{secret: [whsec_minimal]}", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "targets[0].signature.secret: expected a string, got a list")
	assert.NotContains(t, err.Error(), secret)

	f, err := config.Parse("idemcheck.yaml", []byte(minimalWebhook))
	require.NoError(t, err)
	tg := webhookAt(t, f, 0)
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(format, tg), secret, format)
		assert.NotContains(t, fmt.Sprintf(format, *tg.Signature), secret, format)
	}
	assert.Equal(t, secret, string(tg.Signature.Secret), "converted to a string, it is the secret")
	out, err := yaml.Marshal(f)
	require.NoError(t, err)
	assert.Contains(t, string(out), "secret: "+secret, "written back as YAML, it is the file's, so that the file round-trips")
}

func TestWebhooksFake(t *testing.T) {
	yml := strings.Replace(minimalWebhook, "fakes: {payments: {}}", "fakes: {payments: {}, webhooks: {}}", 1)
	yml = strings.Replace(yml, "    events:", "    start: {command: [./hooks, --notify, \"{{fakes.webhooks.url}}\"]}\n    events:", 1)
	f, err := config.Parse("idemcheck.yaml", []byte(yml))
	require.NoError(t, err)
	assert.Equal(t, &webhooks.Settings{HonourKeys: ptr(true), KeyHeader: "Idempotency-Key"}, f.Fakes["webhooks"], "defaults: de-duplicate by Idempotency-Key")

	_, err = config.Parse("idemcheck.yaml", []byte(strings.Replace(yml, "webhooks: {}", "webhooks: {honour_keys: nope, key_header: 'a b'}", 1)))
	var errs config.Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 2, "%v", err)
	assert.Equal(t, `idemcheck.yaml:2:47: fakes.webhooks.honour_keys: expected a boolean (true or false), got string "nope"`, errs[0].Error())
	assert.Equal(t, `idemcheck.yaml:2:65: fakes.webhooks.key_header: invalid header name "a b"`, errs[1].Error())
}
