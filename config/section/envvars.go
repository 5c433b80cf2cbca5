package section

import (
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// {{env.NAME}} takes a value from idemcheck's environment, so that a
// secret (an API token, a database password) need not be written in the
// file. It is allowed where a secret belongs and nowhere else: a target's
// url, its request headers (operations, events, read-backs), the env of
// its process (start.env, and env for cli, mcp and container targets) and
// an sql observer's dsn. The checks read every variable once, and refuse
// one that is not set; the Builder fills the values in. Every value is a
// secret: reports and logs never show it.

// envName is a portable environment variable name.
var envName = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envAllowed says where {{env.NAME}} may be used, for messages.
const envAllowed = "a target's url, headers, env, start.env, and an observer's dsn, url, path, headers and env"

// EnvRefs checks the {{env.NAME}} placeholders of s, a string where they
// are allowed, records the values of the variables, and returns s without
// them, for the checks of its other placeholders.
func (c *Checker) EnvRefs(s string) string {
	return expandEnv(s, func(name, vr string) string {
		switch value, set := c.file.LookupEnv(vr); {
		case !envName.MatchString(vr):
			c.Errorf("invalid environment variable name %q in {{%s}}: use letters, digits and '_', not starting with a digit", vr, name)
		case !set:
			c.Errorf("{{%s}}: the environment variable %s is not set: export it before running idemcheck (its value is used, never printed)", name, vr)
		case strings.Contains(value, "{{"):
			c.Errorf("{{%s}}: the value of %s contains \"{{\", which would be read as a placeholder", name, vr)
		default:
			if c.file.env == nil {
				c.file.env = map[string]string{}
			}
			c.file.env[vr] = value
		}
		return ""
	})
}

// envNotAllowed reports an {{env.NAME}} where it is not allowed; ok is
// false when name is not one.
func (c *Checker) envNotAllowed(name string) (ok bool) {
	if !strings.HasPrefix(name, phEnvPrefix) {
		return false
	}
	c.Errorf("{{%s}} is not allowed here: an environment variable may be used in %s, so that a secret never reaches a command line or a request body", name, envAllowed)
	return true
}

// expandEnv replaces the {{env.NAME}} placeholders of s by value(name,
// NAME), and keeps the others as written.
func expandEnv(s string, value func(name, variable string) string) string {
	if !strings.Contains(s, phEnvPrefix) {
		return s
	}
	return Expand(s, func(name string) string {
		if vr, ok := strings.CutPrefix(name, phEnvPrefix); ok {
			return value(name, vr)
		}
		return "{{" + name + "}}"
	})
}

// FillEnv fills in the {{env.NAME}} placeholders of s from env.
func FillEnv(s string, env map[string]string) string {
	return expandEnv(s, func(name, vr string) string {
		if x, ok := env[vr]; ok {
			return x
		}
		return "{{" + name + "}}"
	})
}
