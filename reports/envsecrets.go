package reports

import (
	"os"
	"slices"
	"strings"
)

// SafeEnv are the variables of idemcheck's environment whose values are
// not secrets (see EnvSecrets); a name that ends in "*" stands for every
// name with that prefix.
var SafeEnv = []string{
	"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "LC_*", "USER", "LOGNAME",
	"SHELL", "PWD", "OLDPWD", "TERM", "COLORTERM", "TZ", "HOSTNAME", "EDITOR", "PAGER", "SHLVL", "XDG_*",
	"DOCKER_HOST", // an address idemcheck names when no engine answers there
}

// SafeEnvVar names the variable that adds names to SafeEnv:
// comma-separated, "*" at the end for a prefix.
const SafeEnvVar = "IDEMCHECK_SAFE_ENV"

// MinSecretLen is the length below which a value of the environment is
// not taken for a secret: too short to be one, and so common that
// redacting it would garble reports.
const MinSecretLen = 8

// commonValues are values too common to be secrets, whatever their length.
var commonValues = []string{"localhost", "production", "development", "staging", "disabled", "enabled", "undefined"}

// EnvSecrets returns the values of environ (as os.Environ gives it) that a
// report must not hold: every value but those of SafeEnv and of the names
// in SafeEnvVar, and those too short or too common to be secrets (shorter
// than MinSecretLen; only digits and punctuation, such as numbers,
// versions and times; an absolute path or a list of them; a word of
// commonValues). A target inherits idemcheck's environment: whatever it
// prints of it (a CI token, a cloud key) stays out of the reports.
func EnvSecrets(environ []string) []string {
	return candidates(environ, safeNames(environ), func(string, string) bool { return true })
}

// safeNames are SafeEnv and the names SafeEnvVar lists in environ.
func safeNames(environ []string) []string {
	safe := slices.Clone(SafeEnv)
	for _, kv := range environ {
		if name, v, ok := strings.Cut(kv, "="); ok && name == SafeEnvVar {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					safe = append(safe, n)
				}
			}
		}
	}
	return safe
}

// candidates returns the values of environ that could be secrets (not
// of a safe name, long and varied enough: secretLike) and that secret
// says are.
func candidates(environ, safe []string, secret func(name, value string) bool) []string {
	var out []string
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || name == SafeEnvVar || safeName(name, safe) || !secretLike(v) || !secret(name, v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// ConfigEnvSecrets returns the values a configuration writes as is into a
// target's environment (settings, NAME=value) that a report must not
// hold. Such a value is in the configuration file for anyone to read, and
// most are settings (a mode, a region, a flag), which redacting would cut
// out of target names, file names and replay commands; so one is a
// secret only when its name says it holds one (KEY, TOKEN, SECRET, PASS,
// PW, AUTH, CRED, PRIVATE, SESSION, COOKIE, SALT, DSN) or it looks like
// a random token (16 characters or more, letters and digits, no space),
// and it is long enough to be one (see EnvSecrets). Names of SafeEnv and
// of SafeEnvVar (in settings or in idemcheck's own environment) are
// never secret. Credentials of a known shape are redacted whatever their
// name (see RedactText).
func ConfigEnvSecrets(settings []string) []string {
	safe := safeNames(append(slices.Clip(settings), SafeEnvVar+"="+os.Getenv(SafeEnvVar)))
	return candidates(settings, safe, func(name, v string) bool { return secretName(name) || tokenLike(v) })
}

// secretWords are the parts of a variable's name that say it holds a
// secret.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASS", "PW", "AUTH", "CRED", "PRIVATE", "SESSION", "COOKIE", "SALT", "DSN"}

func secretName(name string) bool {
	upper := strings.ToUpper(name)
	return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(upper, w) })
}

// tokenLike reports whether v looks like a random token: 16 characters
// or more, without a space, with letters and digits.
func tokenLike(v string) bool {
	return len(v) >= 16 && !strings.ContainsAny(v, " \t\n") &&
		strings.ContainsAny(v, "0123456789") &&
		strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
}

// OwnEnvSecrets is EnvSecrets of this process's environment.
func OwnEnvSecrets() []string { return EnvSecrets(os.Environ()) }

func safeName(name string, safe []string) bool {
	for _, s := range safe {
		if p, ok := strings.CutSuffix(s, "*"); ok && strings.HasPrefix(name, p) || s == name {
			return true
		}
	}
	return false
}

// secretLike reports whether an environment value could be a secret.
func secretLike(v string) bool {
	switch {
	case len(v) < MinSecretLen, slices.Contains(commonValues, strings.ToLower(v)):
		return false
	case !strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f }):
		return false // digits and punctuation: a number, a version, a time
	}
	for _, p := range strings.Split(v, string(os.PathListSeparator)) {
		if p != "" && (!strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\n")) {
			return true
		}
	}
	return false // absolute paths
}
