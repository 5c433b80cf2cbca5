package reports

import (
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// secretShapes are the shapes of credentials a target may print: they are
// redacted from every report and result, whatever the configuration says.
// SECRETS.md, beside this file, lists them with an example each; a test
// checks every row of it against RedactText.
//
// Each shape also names lits, text that any match holds (lowercase when
// the shape ignores case, fold): a text with none of them is not run
// through that shape's expression, which is most of what redacting a
// large result costs.
var secretShapes = []struct {
	re   *lazyregexp.Regexp
	repl string
	lits []string
	fold bool
}{
	// An HTTP credential after its scheme; the scheme word is kept.
	{lazyregexp.New(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}${2}" + Redacted, []string{"bearer", "basic", "token"}, true},
	// Keys with a known prefix and an underscore: Stripe (sk_, rk_,
	// whsec_), GitHub (ghp_, gho_, ghs_, ghu_, github_pat_), npm (npm_).
	{lazyregexp.New(`\b(?:sk|rk|whsec|gh[opsu]|github_pat|npm)_[A-Za-z0-9_]{8,}`), Redacted,
		[]string{"sk_", "rk_", "whsec_", "gho_", "ghp_", "ghs_", "ghu_", "github_pat_", "npm_"}, false},
	// Keys with a known prefix and a dash: OpenAI and Anthropic (sk-,
	// sk-proj-, sk-ant-…), GitLab (glpat-, gldt-, glrt-, glptt-), Slack
	// (xoxb-, xoxp-, …).
	{lazyregexp.New(`\bsk-[A-Za-z0-9_-]{20,}`), Redacted, []string{"sk-"}, false},
	{lazyregexp.New(`\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}`), Redacted, []string{"glpat-", "gldt-", "glrt-", "glptt-"}, false},
	{lazyregexp.New(`\bxox[abprs]-[A-Za-z0-9-]{8,}`), Redacted, []string{"xox"}, false},
	// AWS access key ids and Google API keys.
	{lazyregexp.New(`\bAKIA[0-9A-Z]{16}\b`), Redacted, []string{"AKIA"}, false},
	{lazyregexp.New(`\bAIza[0-9A-Za-z_-]{35}`), Redacted, []string{"AIza"}, false},
	// A JSON Web Token: three base64url parts, the first two JSON.
	{lazyregexp.New(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted, []string{".eyJ"}, false},
	// The password of a URL, a database's included
	// (postgres://app:PASSWORD@host); the user and host are kept.
	{lazyregexp.New(`\b([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)[^\s@/]+@`), "${1}" + Redacted + "@", []string{"://"}, false},
	// A value after a name that says it is secret: password=…,
	// "api_key": "…", client_secret: …; the name is kept.
	{lazyregexp.New(`(?i)\b((?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&,;]{4,}`), "${1}" + Redacted,
		[]string{"password", "passwd", "pwd", "secret", "api", "token", "private"}, true},
	// A PEM private key, whole, or from its header to the end of the text
	// when the text was cut inside it.
	{lazyregexp.New(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)`), Redacted, []string{"-----BEGIN "}, false},
}

// redactShapes redacts every credential of a known shape in s.
func redactShapes(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	// Case is folded as the expressions fold it only in ASCII text (they
	// fold the Kelvin sign with k, for one): any other text runs them all.
	ascii := isASCII(s)
	lower := strings.ToLower(s)
	for _, sh := range secretShapes {
		in := s
		if sh.fold {
			in = lower
		}
		if (ascii || !sh.fold) && !containsAny(in, sh.lits) {
			continue
		}
		s = sh.re.ReplaceAllString(s, sh.repl)
		ascii, lower = isASCII(s), strings.ToLower(s)
	}
	return s
}

// containsAny reports whether s holds one of lits.
func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
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
