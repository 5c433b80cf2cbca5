package harness_test

import (
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
