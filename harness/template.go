package harness

import (
	"fmt"
	"regexp"
	"strings"
)

var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.\-]+)\s*\}\}`)

// Expand replaces every {{name}} in s by vars[name]. A name missing from
// vars is an error, so a typo never reaches a target as a literal.
func Expand(s string, vars map[string]string) (string, error) {
	var missing []string
	out := placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		name := placeholderRE.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown placeholder {{%s}} in %q", strings.Join(missing, "}}, {{"), s)
	}
	return out, nil
}
