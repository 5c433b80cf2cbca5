package reports

import (
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/record"
)

// Redacted is what a secret is replaced with.
const Redacted = "[redacted]"

// secretShapes are the shapes of credentials a target may print: they are
// redacted from every report and result, whatever the configuration says.
//
//   - an HTTP credential after its scheme: "Bearer …", "Basic …",
//     "Token …" (8 or more token characters); the scheme word is kept
//   - API keys with a known prefix: sk_…, rk_… (secret and restricted
//     keys, e.g. sk_live_…), whsec_… (webhook signing secrets), ghp_…,
//     gho_…, ghs_…, github_pat_… (GitHub tokens), xoxb-…, xoxp-… (Slack
//     tokens): 8 or more key characters after the prefix
//   - AWS access key ids: AKIA followed by 16 capitals or digits
var secretShapes = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}${2}" + Redacted},
	{regexp.MustCompile(`\b(?:sk|rk|whsec|gh[opsu]|github_pat)_[A-Za-z0-9_]{8,}`), Redacted},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{8,}`), Redacted},
	{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), Redacted},
}

// RedactText replaces, in s, every occurrence of one of secrets (values
// the configuration marks secret; empty ones are ignored) and every
// credential of a known shape (see secretShapes) with Redacted.
func RedactText(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	if !mayHoldSecret(s) {
		return s
	}
	for _, sh := range secretShapes {
		s = sh.re.ReplaceAllString(s, sh.repl)
	}
	return s
}

// mayHoldSecret is a cheap filter before the regular expressions.
func mayHoldSecret(s string) bool {
	return strings.Contains(s, "_") || strings.Contains(s, "xox") || strings.Contains(s, "AKIA") ||
		strings.ContainsAny(s, "bBtT") && (strings.Contains(strings.ToLower(s), "bearer") ||
			strings.Contains(strings.ToLower(s), "basic") || strings.Contains(strings.ToLower(s), "token"))
}

// Redact returns a copy of res cleaned (see Clean) and with every secret
// redacted (see RedactText) from every string it holds: target output,
// replies, errors and messages alike. Write result.json and the reports
// from it.
func Redact(res *record.Result, secrets []string) *record.Result {
	return transformed(res, func(s string) string { return RedactText(Clean(s), secrets) })
}
