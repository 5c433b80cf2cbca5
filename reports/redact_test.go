package reports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/reports"
)

func TestRedactText(t *testing.T) {
	rows := []struct{ why, in, want string }{
		{"a bearer token keeps its scheme", "Authorization: Bearer eyJhbGciOi.J9xyz", "Authorization: Bearer [redacted]"},
		{"basic credentials", "authorization: basic dXNlcjpwYXNzd29yZA==", "authorization: basic [redacted]"},
		{"a live secret key", "using key sk_live_51HqLyjWDarjtT1zdp7dc", "using key [redacted]"},
		{"a test secret key", "sk_test_4eC39HqLyjWDarjtT1zdp7dc.", "[redacted]."},
		{"a webhook signing secret", "secret=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "secret=[redacted]"},
		{"a GitHub token", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "[redacted]"},
		{"an AWS access key id", "AKIAIOSFODNN7EXAMPLE is mine", "[redacted] is mine"},
		{"a Slack token", "xoxb-1234-5678-abcdefgh", "[redacted]"},
		{"a value the config marks secret", "signed with hunter2-horse!", "signed with [redacted]!"},
		{"the word token alone is kept", "the token expired", "the token expired"},
		{"a charge id is kept", "charge ch_000001 and key idk-69821a74e49a89e2", "charge ch_000001 and key idk-69821a74e49a89e2"},
		{"a short sk_ word is kept", "disk_io and sk_abc", "disk_io and sk_abc"},
		{"a publishable key is kept", "pk_test_TYooMQauvdEDq54NiTphI7jx", "pk_test_TYooMQauvdEDq54NiTphI7jx"},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			assert.Equal(t, r.want, reports.RedactText(r.in, []string{"hunter2-horse", ""}))
		})
	}
}
