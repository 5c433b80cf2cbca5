package keys

import (
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// DefaultMetaField is the _meta field proposed for the key when a text
// names _meta but not the field.
const DefaultMetaField = "idempotency-key"

// metaField finds the field after _meta: _meta["idempotency-key"],
// _meta.idempotencyKey, "_meta field idempotency-key", "_meta key 'x'".
var metaField = lazyregexp.New(`_meta(?:\s*\[\s*["']|\.|\s+(?:field|key|property)\s+["'` + "`" + `]?)([A-Za-z][A-Za-z0-9_.\-/]{0,63})`)

// MetaField reports whether text (a tool's description, a server's
// refusal) names an MCP call's _meta, and the field it names there for
// the key: DefaultMetaField when it names none.
func MetaField(text string) (string, bool) {
	if !strings.Contains(text, "_meta") {
		return "", false
	}
	if m := metaField.FindStringSubmatch(text); m != nil {
		return strings.TrimRight(m[1], "."), true
	}
	return DefaultMetaField, true
}
