package observe

import (
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// envRef finds the {{env.NAME}} placeholders of a setting.
var envRef = lazyregexp.New(`\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// expand fills vars and {{env.NAME}} into s and keeps {{marker}}; any other
// placeholder is an error, so a typo never reaches a database as a literal.
func expand(s string, vars map[string]string) (string, error) {
	all := maps.Clone(vars)
	if all == nil {
		all = map[string]string{}
	}
	all["marker"] = "{{marker}}"
	for _, m := range envRef.FindAllStringSubmatch(s, -1) {
		v, ok := os.LookupEnv(m[1])
		if !ok {
			return "", fmt.Errorf("{{env.%s}}: the environment variable %s is not set", m[1], m[1])
		}
		all["env."+m[1]] = v
	}
	return harness.Expand(s, all)
}

// ExpandDSN fills the placeholders of a database DSN, as an observer does
// before it connects: {{env.NAME}} anywhere, the whole DSN included
// ("{{env.DATABASE_URL}}"), {{state_dir}} from env when it is not nil. The
// scheme is checked afterwards, by Driver, on the expanded DSN.
func ExpandDSN(dsn string, env *harness.Env) (string, error) {
	out, err := Where{Env: env}.Expand(dsn)
	if err != nil {
		return "", fmt.Errorf("dsn: %w", err)
	}
	if strings.Contains(out, "{{marker}}") {
		return "", fmt.Errorf("dsn: {{marker}} belongs in the query, not in the DSN")
	}
	return out, nil
}

// placeholderFirst reports whether s starts with a placeholder, so that
// what it is (a DSN's scheme) is known only once it is expanded.
func placeholderFirst(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "{{")
}
