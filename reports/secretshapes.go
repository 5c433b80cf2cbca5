package reports

import (
	"regexp"
	"strings"
)

// secretShapes are the shapes of credentials a target may print: they are
// redacted from every report and result, whatever the configuration says.
// SECRETS.md, beside this file, lists them with an example each; a test
// checks every row of it against RedactText.
var secretShapes = []struct {
	re   *regexp.Regexp
	repl string
}{
	// An HTTP credential after its scheme; the scheme word is kept.
	{regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}${2}" + Redacted},
	// Keys with a known prefix and an underscore: Stripe (sk_, rk_,
	// whsec_), GitHub (ghp_, gho_, ghs_, ghu_, github_pat_), npm (npm_).
	{regexp.MustCompile(`\b(?:sk|rk|whsec|gh[opsu]|github_pat|npm)_[A-Za-z0-9_]{8,}`), Redacted},
	// Keys with a known prefix and a dash: OpenAI and Anthropic (sk-,
	// sk-proj-, sk-ant-…), GitLab (glpat-, gldt-, glrt-, glptt-), Slack
	// (xoxb-, xoxp-, …).
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`), Redacted},
	{regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}`), Redacted},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{8,}`), Redacted},
	// AWS access key ids and Google API keys.
	{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), Redacted},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), Redacted},
	// A JSON Web Token: three base64url parts, the first two JSON.
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted},
	// The password of a URL, a database's included
	// (postgres://app:PASSWORD@host); the user and host are kept.
	{regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)[^\s@/]+@`), "${1}" + Redacted + "@"},
	// A value after a name that says it is secret: password=…,
	// "api_key": "…", client_secret: …; the name is kept.
	{regexp.MustCompile(`(?i)\b((?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&,;]{4,}`), "${1}" + Redacted},
	// A PEM private key, whole, or from its header to the end of the text
	// when the text was cut inside it.
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)`), Redacted},
}

// redactShapes redacts every credential of a known shape in s.
func redactShapes(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	for _, sh := range secretShapes {
		s = sh.re.ReplaceAllString(s, sh.repl)
	}
	return s
}

// mayHoldSecret is a cheap filter before the regular expressions: every
// shape holds one of these.
func mayHoldSecret(s string) bool {
	if strings.ContainsAny(s, "_-@=:") {
		return true
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "bearer") || strings.Contains(l, "basic") || strings.Contains(l, "token") ||
		strings.Contains(s, "AKIA") || strings.Contains(s, "AIza") || strings.Contains(s, "eyJ")
}
