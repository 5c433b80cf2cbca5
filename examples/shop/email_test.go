package shop_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
)

// With --email an order is two side effects, a charge and a confirmation
// email, and each must happen exactly once.

const emailMarker = "idem-00000000000000e1"

func mustStartEmailShop(t *testing.T, profile string, pay *payments, mail *email.Server) *testShop {
	t.Helper()
	return mustServe(t, shop.Options{Profile: profile, StateDir: t.TempDir(), EmailURL: mail.URL()}, pay)
}

func TestEmailConfirmationIsSentOnceWithTheKey(t *testing.T) {
	t.Parallel()
	pay, mail := newPayments(t), email.Start(t)
	s := mustStartEmailShop(t, "correct", pay, mail)

	first := s.post(t, "/orders", "k1", order("cus_1", 1234, "order "+emailMarker))
	require.Equal(t, http.StatusOK, first.Status, first)
	again := s.post(t, "/orders", "k1", order("cus_1", 1234, "order "+emailMarker))
	require.Equal(t, http.StatusOK, again.Status, again)
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))

	msgs := mail.Messages()
	require.Len(t, msgs, 1, "one confirmation, even with a retry")
	m := msgs[0]
	assert.Equal(t, []string{"cus_1@customers.shop.example"}, m.To)
	assert.Equal(t, "orders@shop.example", m.From)
	assert.Equal(t, "Your order is confirmed", m.Subject)
	assert.Equal(t, "We charged 1234 usd (charge ch_000001). order "+emailMarker, m.Text)
	assert.Equal(t, "k1", m.Key, "the client's key is passed to the email API too")
	assert.Equal(t, []string{emailMarker}, m.Markers, "the memo carries the marker into the email")
	assert.Equal(t, 1, pay.Count())

	// A subscription and a dry run send nothing.
	sub := s.post(t, "/subscriptions", "k2", map[string]any{"customer": "cus_1", "plan": "pro", "memo": "m"})
	require.Equal(t, http.StatusOK, sub.Status, sub)
	dry := s.post(t, "/orders?dry_run=true", "k3", order("cus_1", 5, "m"))
	require.Equal(t, http.StatusOK, dry.Status, dry)
	assert.Len(t, mail.Messages(), 1)
}

func TestEmailFailureReleasesTheKeyAndTheRetrySendsOnce(t *testing.T) {
	for _, tc := range []struct {
		action fakes.Action
		why    string
	}{
		{fakes.FailBefore, "the email provider failed before sending: the retry sends it"},
		{fakes.FailAfter, "the provider sent it and answered 503: the retry's key makes it replay"},
		{fakes.ResetAfter, "the provider sent it and dropped the connection: the same"},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			t.Parallel()
			pay, mail := newPayments(t), email.Start(t)
			s := mustStartEmailShop(t, "correct", pay, mail)
			mail.Arm(fakes.Rule{Marker: emailMarker, Action: tc.action})

			failed := s.post(t, "/orders", "k", order("cus_1", 900, emailMarker))
			assert.Equal(t, http.StatusBadGateway, failed.Status, failed)
			assert.True(t, strings.HasPrefix(failed.Error, "email: "), failed.Error)

			retry := s.post(t, "/orders", "k", order("cus_1", 900, emailMarker))
			require.Equal(t, http.StatusOK, retry.Status, retry)
			effect, _ := retry.Effect()
			assert.Equal(t, "created", effect, "the first success the client sees")
			assert.Equal(t, 1, pay.Count(), "the charge was replayed by payments, not made again")
			assert.Len(t, mail.Messages(), 1, tc.why)
		})
	}
}

func TestEmailWithoutAKeyDownstreamDuplicates(t *testing.T) {
	// memory-cache keeps its key to itself: after an ambiguous email
	// failure the retry charges and mails again. The same flaw, now on two
	// side effects.
	t.Parallel()
	pay, mail := newPayments(t), email.Start(t)
	s := mustStartEmailShop(t, "memory-cache", pay, mail)
	mail.Arm(fakes.Rule{Marker: emailMarker, Action: fakes.FailAfter})

	assert.Equal(t, http.StatusBadGateway, s.post(t, "/orders", "k", order("cus_1", 900, emailMarker)).Status)
	assert.Equal(t, http.StatusOK, s.post(t, "/orders", "k", order("cus_1", 900, emailMarker)).Status)
	assert.Equal(t, 2, pay.Count())
	assert.Len(t, mail.Messages(), 2)
}

func TestEmailURLMustBeAbsolute(t *testing.T) {
	t.Setenv("EMAIL_URL", "")
	var stdout, stderr strings.Builder
	code := shop.Main(t.Context(), []string{"--profile", "correct", "--payments", "http://127.0.0.1:1", "--email", "127.0.0.1:4243"}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "email URL")
}
