package postgres

import (
	"fmt"
	"strings"
)

// DefaultCode is the SQLSTATE a Fail rule without a code answers with:
// serialization_failure, the error a correct client retries.
const DefaultCode = "40001"

// messages are PostgreSQL's own texts for the codes a fault most often
// injects, so that a target that matches on the text sees what it would.
var messages = map[string]string{
	"40001": "could not serialize access due to concurrent update",
	"40P01": "deadlock detected",
	"55P03": "could not obtain lock on row in relation",
	"57014": "canceling statement due to statement timeout",
	"57P01": "terminating connection due to administrator command",
	"57P02": "terminating connection because of crash of another server process",
	"57P03": "the database system is starting up",
	"53300": "sorry, too many clients already",
	"53100": "could not extend file: No space left on device",
	"25006": "cannot execute statement in a read-only transaction",
	"23505": "duplicate key value violates unique constraint",
	"08006": "connection failure",
	"XX000": "internal error",
}

// defaultMessage returns PostgreSQL's text for code, or a neutral one.
func defaultMessage(code string) string {
	if m, ok := messages[code]; ok {
		return m
	}
	return fmt.Sprintf("injected failure (SQLSTATE %s)", code)
}

// closesConnection says whether PostgreSQL ends the connection after an
// error with code: the operator intervention codes 57P0x and the
// connection exceptions (class 08) are FATAL.
func closesConnection(code string) bool {
	return strings.HasPrefix(code, "57P") || strings.HasPrefix(code, "08")
}
