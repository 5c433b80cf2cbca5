package process

import (
	"os"
	"strings"
)

// Inherited are the variables of idemcheck's environment that a target it
// starts (a server, a CLI tool, an MCP server) is given, beside those its
// configuration sets (env, start.env): what a program needs to run at all
// (PATH, HOME, TMPDIR, LANG, LC_*, USER, TZ, …), none of them a secret. A
// name that ends in "*" stands for every name with that prefix. The
// rest of idemcheck's environment (a CI token, a cloud key) is not
// passed on: a target that needs a variable gets it from its
// configuration, e.g. env: {GOCACHE: "{{env.GOCACHE}}"}, or from
// SafeEnvVar. Every name here is one reports.SafeEnv keeps out of the
// secrets.
var Inherited = []string{
	"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "LC_*", "USER", "LOGNAME",
	"SHELL", "TERM", "COLORTERM", "TZ", "HOSTNAME", "XDG_*",
}

// SafeEnvVar names the variable whose comma-separated names (a "*" at
// the end for a prefix) are passed on to targets too, as they are kept
// out of the secrets (reports.SafeEnvVar).
const SafeEnvVar = "IDEMCHECK_SAFE_ENV"

// BaseEnv returns the entries of environ (as os.Environ gives them) that
// a target inherits: those of Inherited and of the names SafeEnvVar
// lists. A target's environment is BaseEnv(os.Environ()) and what its
// configuration sets, which wins.
func BaseEnv(environ []string) []string {
	names := append([]string(nil), Inherited...)
	for _, kv := range environ {
		if name, v, ok := strings.Cut(kv, "="); ok && name == SafeEnvVar {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, n)
				}
			}
		}
	}
	var out []string
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && name != SafeEnvVar && matchesName(name, names) {
			out = append(out, kv)
		}
	}
	return out
}

// OwnBaseEnv is BaseEnv of this process's environment.
func OwnBaseEnv() []string { return BaseEnv(os.Environ()) }

func matchesName(name string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok && p != "" && strings.HasPrefix(name, p) || n == name {
			return true
		}
	}
	return false
}

// PassOn adds names to SafeEnvVar in this process's environment, so that
// the targets it starts from now on inherit those variables (and reports
// do not take their values for secrets): for a test that sets a variable
// its targets must see (GORACE, a tag that finds its leftovers).
func PassOn(names ...string) {
	v := os.Getenv(SafeEnvVar)
	for _, n := range names {
		if v != "" {
			v += ","
		}
		v += n
	}
	os.Setenv(SafeEnvVar, v)
}
