package reports_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/reports"
)

func TestRedactText(t *testing.T) {
	rows := []struct{ why, in, want string }{
		{"a value the config marks secret", "signed with hunter2-horse!", "signed with [redacted]!"},
		{"the word token alone is kept", "the token expired", "the token expired"},
		{"a charge id is kept", "charge ch_000001 and key idk-69821a74e49a89e2", "charge ch_000001 and key idk-69821a74e49a89e2"},
		{"a short sk_ word is kept", "disk_io and sk_abc", "disk_io and sk_abc"},
		{"a publishable key is kept", "pk_test_TYooMQauvdEDq54NiTphI7jx", "pk_test_TYooMQauvdEDq54NiTphI7jx"},
		{"a URL without a password is kept", "GET http://127.0.0.1:8080/orders?id=7", "GET http://127.0.0.1:8080/orders?id=7"},
		{"a marker is kept", "memo idem-0123456789abcdef", "memo idem-0123456789abcdef"},
	}
	for _, r := range rows {
		t.Run(r.why, func(t *testing.T) {
			assert.Equal(t, r.want, reports.RedactText(r.in, []string{"hunter2-horse", ""}))
		})
	}
}

// secretsRow is a row of SECRETS.md's table: | shape | `example` | `written as` |.
var secretsRow = regexp.MustCompile("^\\| ([^|]+) \\| `(.+)` \\| `(.+)` \\|$")

// TestSecretsTable checks every row of SECRETS.md, the documented shapes,
// against the redactor: the documentation is the test.
func TestSecretsTable(t *testing.T) {
	b, err := os.ReadFile("SECRETS.md")
	require.NoError(t, err)
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		m := secretsRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows++
		in, want := strings.ReplaceAll(m[2], `\n`, "\n"), strings.ReplaceAll(m[3], `\n`, "\n")
		t.Run(m[1], func(t *testing.T) {
			assert.Equal(t, want, reports.RedactText(in, nil))
		})
	}
	assert.GreaterOrEqual(t, rows, 20, "the table's rows were found")
}

// TestSecretCutAtTheEvidenceLimit: a configured secret cut in two by the
// 2 KiB limit of evidence (the end of a body's head, the start of
// stderr's tail, after its ellipsis) is redacted in both halves; a
// shorter piece, one in the middle of a text, or one at the edge of a
// short text that no limit cut (a target's name) is left.
func TestSecretCutAtTheEvidenceLimit(t *testing.T) {
	const secret = "s3cret-Value-0123456789"
	body := strings.Repeat("x", 2048-9) + secret[:9] // the head of a reply cut after 9 bytes of it
	stderr := "…" + secret[9:] + " then more output" // the tail of stderr, cut before the rest
	assert.Equal(t, strings.Repeat("x", 2039)+"[redacted]", reports.RedactText(body, []string{secret}))
	assert.Equal(t, "…[redacted] then more output", reports.RedactText(stderr, []string{secret}))
	assert.Equal(t, "…[redacted] and the rest", reports.RedactText("…"+secret[5:]+" and the rest", []string{secret}))
	assert.Equal(t, "a short text cut at its end: [redacted]…", reports.RedactText("a short text cut at its end: "+secret[:9]+"…", []string{secret}))

	kept := []string{
		"ends in s3c",                   // 3 bytes: too short to tell from chance
		"the s3cret-V is here",          // a piece inside a text is no cut
		"0123 at the start",             // not where the secret ends
		"Value-0123456789 and the rest", // the secret's end, but no cut before it
		"orders-no-s3cret",              // a short name that ends like the secret starts
	}
	for _, s := range kept {
		assert.Equal(t, s, reports.RedactText(s, []string{secret}))
	}
}

// TestLongerSecretsFirst: a secret that holds another is redacted whole.
func TestLongerSecretsFirst(t *testing.T) {
	assert.Equal(t, "a [redacted] b", reports.RedactText("a abcdefgh-ijkl b", []string{"abcdefgh", "abcdefgh-ijkl"}))
}
