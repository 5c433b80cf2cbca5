package reports

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapeFilterChangesNothing: skipping a shape's expression when the
// text holds none of its literals gives the text every expression gives,
// on each example of SECRETS.md (alone, in a longer text, in upper case)
// and on texts that only look close.
func TestShapeFilterChangesNothing(t *testing.T) {
	b, err := os.ReadFile("SECRETS.md")
	require.NoError(t, err)
	var texts []string
	for _, line := range strings.Split(string(b), "\n") {
		if _, rest, ok := strings.Cut(line, "| `"); ok {
			ex, _, _ := strings.Cut(rest, "`")
			ex = strings.ReplaceAll(ex, `\n`, "\n")
			texts = append(texts, ex, "reply: "+ex+" (then more)", strings.ToUpper(ex))
		}
	}
	require.GreaterOrEqual(t, len(texts), 60, "the examples were found")
	texts = append(texts,
		`{"id":"ord_123","memo":"order 0x1f","customer":"cus_abcdefgh"}`, // no shape: every expression skipped
		"Bearer   abcdefgh12345678",                                      // case and spacing of a scheme
		"PASSWORD = hunter2hunter2",                                      // a name in upper case
		"api-key: 0123456789abcdef",                                      // a name with a dash
		"\u212Aey=0123 token \u212Aelvin abcdefgh12345678",               // non-ASCII: folded by the expressions only
		"pa\u017F\u017Fword=abcdefgh",                                    // ſ folds with s in the expressions
		"postgres://app:pw@db:5432/x and sk-"+strings.Repeat("a", 20),    // two shapes in one text
	)
	every := func(s string) string {
		for _, sh := range secretShapes {
			s = sh.re.ReplaceAllString(s, sh.repl)
		}
		return s
	}
	for _, s := range texts {
		assert.Equal(t, every(s), redactShapes(s), "%q", s)
	}
}
