package config

import (
	"os"
	"regexp"
	"slices"
	"strings"
)

// {{env.NAME}} takes a value from idemcheck's environment, so that a
// secret (an API token, a database password) need not be written in the
// file. It is allowed where a secret belongs and nowhere else: a target's
// url, its request headers (operations, events, read-backs), the env of
// its process (start.env, and env for cli, mcp and container targets) and
// an sql observer's dsn. Parse reads every variable once, and refuses a
// file that names one that is not set; Specs fills the values in. Every
// value is a secret (see File.Secrets): reports and logs never show it.

// phEnvPrefix starts an environment placeholder.
const phEnvPrefix = "env."

// MinSecretLength is the length below which a value is not redacted: a
// value of one to three characters is no secret, and replacing it
// wherever it appears would garble every report.
const MinSecretLength = 4

// envName is a portable environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envAllowed says where {{env.NAME}} may be used, for messages.
const envAllowed = "a target's url, headers, env, start.env and an sql observer's dsn"

// envRefs checks the {{env.NAME}} placeholders of s, a string where they
// are allowed, records the values of the variables, and returns s without
// them, for the checks of its other placeholders.
func (v *validator) envRefs(path, s string) string {
	if !strings.Contains(s, phEnvPrefix) {
		return s
	}
	return expandSome(s, func(name string) (string, bool) {
		vr, ok := strings.CutPrefix(name, phEnvPrefix)
		if !ok {
			return "", false
		}
		switch value, set := v.lookupEnv(vr); {
		case !envName.MatchString(vr):
			v.errorf(path, "invalid environment variable name %q in {{%s}}: use letters, digits and '_', not starting with a digit", vr, name)
		case !set:
			v.errorf(path, "{{%s}}: the environment variable %s is not set: export it before running idemcheck (its value is used, never printed)", name, vr)
		case strings.Contains(value, "{{"):
			v.errorf(path, "{{%s}}: the value of %s contains \"{{\", which would be read as a placeholder", name, vr)
		default:
			if v.env == nil {
				v.env = map[string]string{}
			}
			v.env[vr] = value
		}
		return "", true
	})
}

func (v *validator) lookupEnv(name string) (string, bool) {
	if v.getenv != nil {
		return v.getenv(name)
	}
	return os.LookupEnv(name)
}

// envNotAllowed reports an {{env.NAME}} where it is not allowed; ok is
// false when name is not one.
func (v *validator) envNotAllowed(path, name string) (ok bool) {
	if !strings.HasPrefix(name, phEnvPrefix) {
		return false
	}
	v.errorf(path, "{{%s}} is not allowed here: an environment variable may be used in %s, so that a secret never reaches a command line or a request body", name, envAllowed)
	return true
}

// expandSome replaces the placeholders of s for which value says ok, and
// keeps the others as written.
func expandSome(s string, value func(name string) (string, bool)) string {
	return expand(s, func(name string) string {
		if x, ok := value(name); ok {
			return x
		}
		return "{{" + name + "}}"
	})
}

// withEnv fills in the {{env.NAME}} placeholders of s with the values
// Parse read.
func (f *File) withEnv(s string) string {
	if !strings.Contains(s, phEnvPrefix) {
		return s
	}
	return expandSome(s, func(name string) (string, bool) {
		vr, ok := strings.CutPrefix(name, phEnvPrefix)
		if !ok {
			return "", false
		}
		x, ok := f.env[vr]
		return x, ok
	})
}

func (f *File) withEnvMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, s := range m {
		out[k] = f.withEnv(s)
	}
	return out
}

// Secrets returns every value that reports and logs must not show: the
// values of the {{env.NAME}} variables the file uses, the secrets it
// holds (of type Secret, such as a webhook signing secret), and the
// values written in the headers that carry credentials (see
// SecretHeader), with the credential alone when the value starts with a
// scheme ("Bearer …"). Values shorter than MinSecretLength are left out.
// The result is sorted, without duplicates.
func (f *File) Secrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= MinSecretLength {
			out = append(out, s)
		}
	}
	for _, x := range f.env {
		add(x)
	}
	for i := range f.Targets {
		t := &f.Targets[i]
		if t.Signature != nil {
			add(string(t.Signature.Secret))
		}
		headers := func(hs map[string]string) {
			for name, x := range hs {
				if !SecretHeader(name) || strings.EqualFold(name, t.KeyHeader) || strings.Contains(x, "{{") {
					continue
				}
				add(x)
				if _, cred, ok := strings.Cut(strings.TrimSpace(x), " "); ok {
					add(strings.TrimSpace(cred))
				}
			}
		}
		for _, op := range t.Operations {
			headers(op.Headers)
		}
		for _, ev := range t.Events {
			headers(ev.Headers)
		}
		for _, o := range t.Observe {
			if o.HTTP != nil {
				headers(o.HTTP.Headers)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SecretHeader says whether a header carries a credential, by its name:
// Authorization, Proxy-Authorization, Cookie, and names that end in
// -Token, -Key, -Secret or -Password, or contain ApiKey, such as
// X-Api-Key. An idempotency key header (Idempotency-Key, or the target's
// key_header) is not one: a key is no secret.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "idempotency"):
		return false
	case n == "authorization", n == "proxy-authorization", n == "cookie":
		return true
	case strings.Contains(n, "apikey"), strings.Contains(n, "api-key"), strings.Contains(n, "api_key"):
		return true
	}
	for _, suffix := range []string{"-token", "_token", "-key", "_key", "-secret", "_secret", "-password", "_password"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
