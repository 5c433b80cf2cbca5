package harness_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/harness"
)

// TestEnvVars: the placeholders every adapter fills in come from one
// place: the state directory, each fake's URL, and the SMTP address of a
// fake that speaks SMTP.
func TestEnvVars(t *testing.T) {
	t.Parallel()
	mail, err := email.New(email.Options{})
	require.NoError(t, err)
	defer mail.Close()
	pay, err := payments.New(payments.Options{})
	require.NoError(t, err)
	defer pay.Close()
	env := &harness.Env{Fakes: map[string]fakes.Fake{"email": mail, "payments": pay}, StateDir: "/tmp/state"}
	vars := env.Vars()
	for _, tc := range []struct{ why, in, want string }{
		{"an email fake's SMTP address is filled in", "--smtp={{fakes.email.smtp}}", "--smtp=" + mail.SMTPAddr()},
		{"spaces inside the braces are allowed", "{{ fakes.email.smtp }}", mail.SMTPAddr()},
		{"every fake's URL", "{{fakes.payments.url}} {{fakes.email.url}}", pay.URL() + " " + mail.URL()},
		{"the state directory", "--state={{state_dir}}", "--state=/tmp/state"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			got, err := harness.Expand(tc.in, vars)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err = harness.Expand("{{fakes.payments.smtp}}", vars)
	assert.ErrorContains(t, err, "unknown placeholder {{fakes.payments.smtp}}", "a fake that speaks no SMTP has no SMTP address")
	_, ok := vars["port"]
	assert.False(t, ok, "{{port}} is the adapter's to pick")
}

// placeholderRE is what Expand recognises, as a regular expression.
var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.\-]+)\s*\}\}`)

// expandByRE is Expand written with placeholderRE.
func expandByRE(s string, vars map[string]string) (string, []string) {
	var missing []string
	out := placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	return out, missing
}

// FuzzExpand: Expand replaces what the regular expression matches, and
// nothing else, and misses what it misses.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "{{a}}", "x{{ a }}y{{b}}", "{{{a}}}", "{{ a\t}}", "{{a b}}", "{{}}", "{{ missing }} {{a}}", "{{a}", "{ {a}}", "{{a.b-c_d}}{{", "é{{a}}é"} {
		f.Add(s)
	}
	vars := map[string]string{"a": "A", "b": "{{a}}", "a.b-c_d": "long"}
	f.Fuzz(func(t *testing.T, s string) {
		want, missing := expandByRE(s, vars)
		got, err := harness.Expand(s, vars)
		if len(missing) > 0 {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "{{"+strings.Join(missing, "}}, {{")+"}}")
			return
		}
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
}
