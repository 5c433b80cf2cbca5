package postgres

import "strings"

// kind is what a statement does to the transaction and the data.
type kind uint8

const (
	kindRead     kind = iota // everything below does not cover: SELECT, SHOW, SET, …
	kindWrite                // changes data or schema
	kindBegin                // BEGIN, START TRANSACTION
	kindCommit               // COMMIT, END
	kindRollback             // ROLLBACK, ABORT (not ROLLBACK TO)
)

func (k kind) String() string {
	return [...]string{"read", "write", "begin", "commit", "rollback"}[k]
}

// writeWords start a statement that changes data or schema. EXECUTE runs a
// prepared statement whose text the proxy may not have seen: it counts as
// a write, to be safe.
var writeWords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "TRUNCATE": true,
	"CREATE": true, "ALTER": true, "DROP": true, "GRANT": true, "REVOKE": true,
	"COMMENT": true, "CALL": true, "DO": true, "REFRESH": true, "SECURITY": true,
	"REINDEX": true, "CLUSTER": true, "IMPORT": true, "EXECUTE": true,
}

// dmlWords make a WITH statement a write when one starts a clause.
var dmlWords = map[string]bool{"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true}

// stmtInfo is one statement of a query string, classified.
type stmtInfo struct {
	kind    kind
	text    string
	markers []string // the intent markers in text, filled by the caller
}

// splitStatements splits sql at its top-level semicolons, skipping
// comments, quoted strings and identifiers and dollar-quoted bodies, and
// classifies each non-empty statement by its words. It reads what a
// statement does from its words only: a function called from a SELECT
// that writes is not seen as a write.
func splitStatements(sql string) []stmtInfo {
	var out []stmtInfo
	var sc stmtScan
	start := 0
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ';' && sc.depth == 0:
			if k, ok := sc.result(); ok {
				out = append(out, stmtInfo{kind: k, text: strings.TrimSpace(sql[start:i])})
			}
			sc = stmtScan{}
			i++
			start = i
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			i = skipBlockComment(sql, i)
		case c == '\'':
			escapes := i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i == 1 || !isWordByte(sql[i-2]))
			i = skipQuoted(sql, i, '\'', escapes)
			sc.prev = ""
		case c == '"':
			i = skipQuoted(sql, i, '"', false)
			sc.prev = ""
		case c == '$':
			if end, ok := skipDollarQuoted(sql, i); ok {
				i = end
				sc.prev = ""
			} else {
				i++ // a parameter ($1)
			}
		case c == '(':
			sc.depth++
			sc.afterParen = true
			i++
		case c == ')':
			if sc.depth > 0 {
				sc.depth--
			}
			i++
		case isWordStart(c):
			j := i + 1
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			sc.word(strings.ToUpper(sql[i:j]))
			i = j
		default:
			i++
		}
	}
	if k, ok := sc.result(); ok {
		out = append(out, stmtInfo{kind: k, text: strings.TrimSpace(sql[start:])})
	}
	return out
}

// stmtScan gathers, word by word, what classifies one statement.
type stmtScan struct {
	first, second string
	words         int
	depth         int
	afterParen    bool   // the next word starts a parenthesised clause
	prev          string // the previous word
	dml           bool   // a data-changing clause (for WITH)
	copyFrom      bool   // COPY … FROM (not TO)
	copyDir       bool   // COPY's direction is known
}

func (s *stmtScan) word(w string) {
	s.words++
	switch s.words {
	case 1:
		s.first = w
	case 2:
		s.second = w
	}
	if dmlWords[w] && s.words > 1 && s.prev != "FOR" && s.prev != "KEY" && (s.afterParen || s.depth == 0) {
		s.dml = true
	}
	if s.first == "COPY" && s.depth == 0 && !s.copyDir && (w == "FROM" || w == "TO") {
		s.copyDir, s.copyFrom = true, w == "FROM"
	}
	s.afterParen = false
	s.prev = w
}

// result classifies the statement; ok is false for an empty one.
func (s *stmtScan) result() (kind, bool) {
	switch s.first {
	case "":
		return kindRead, false
	case "BEGIN", "START":
		return kindBegin, true
	case "COMMIT", "END":
		if s.second == "PREPARED" {
			return kindWrite, true
		}
		return kindCommit, true
	case "ROLLBACK", "ABORT":
		if s.second == "TO" || s.second == "PREPARED" {
			return kindRead, true
		}
		return kindRollback, true
	case "WITH":
		if s.dml {
			return kindWrite, true
		}
		return kindRead, true
	case "COPY":
		if s.copyFrom {
			return kindWrite, true
		}
		return kindRead, true
	}
	if writeWords[s.first] {
		return kindWrite, true
	}
	return kindRead, true
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isWordByte(c byte) bool {
	return isWordStart(c) || (c >= '0' && c <= '9') || c == '$'
}

// skipBlockComment returns the index after the (nested) comment at i.
func skipBlockComment(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch {
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			depth++
			i += 2
		case s[i] == '*' && i+1 < len(s) && s[i+1] == '/':
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return i
}

// skipQuoted returns the index after the string quoted with q at i; a
// doubled quote stands for itself, and with escapes a backslash escapes
// the next byte.
func skipQuoted(s string, i int, q byte, escapes bool) int {
	i++
	for i < len(s) {
		switch {
		case escapes && s[i] == '\\':
			i += 2
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			return i + 1
		default:
			i++
		}
	}
	return len(s)
}

// skipDollarQuoted returns the index after the $tag$…$tag$ body at i, or
// false when i starts no dollar quote.
func skipDollarQuoted(s string, i int) (int, bool) {
	if i > 0 && isWordByte(s[i-1]) {
		return 0, false // inside an identifier such as a$b
	}
	j := i + 1
	for j < len(s) && s[j] != '$' {
		c := s[j]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 || (j > i+1 && c >= '0' && c <= '9')) {
			return 0, false
		}
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	tag := s[i : j+1]
	end := strings.Index(s[j+1:], tag)
	if end < 0 {
		return len(s), true
	}
	return j + 1 + end + len(tag), true
}
