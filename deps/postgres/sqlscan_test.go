package postgres

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func kinds(sql string) []string {
	var out []string
	for _, s := range splitStatements(sql) {
		out = append(out, s.kind.String())
	}
	return out
}

func TestSplitStatements(t *testing.T) {
	cases := []struct {
		sql  string
		want []string
		why  string
	}{
		{"", nil, "nothing"},
		{" ; ;", nil, "empty statements are none"},
		{"SELECT 1", []string{"read"}, "a read"},
		{"insert into t values (1)", []string{"write"}, "case does not matter"},
		{"BEGIN; INSERT INTO t VALUES (1); COMMIT", []string{"begin", "write", "commit"}, "a transaction in one query"},
		{"START TRANSACTION ISOLATION LEVEL SERIALIZABLE", []string{"begin"}, "START"},
		{"END", []string{"commit"}, "END commits"},
		{"ABORT", []string{"rollback"}, "ABORT rolls back"},
		{"ROLLBACK TO SAVEPOINT a", []string{"read"}, "rolling back to a savepoint ends nothing"},
		{"COMMIT PREPARED 'x'", []string{"write"}, "a prepared transaction's commit is another's"},
		{"SELECT 'a;b'; UPDATE t SET a = 1", []string{"read", "write"}, "a semicolon in a string"},
		{`SELECT "x;y" FROM t`, []string{"read"}, "a semicolon in an identifier"},
		{"SELECT 1 -- ; DELETE FROM t\n", []string{"read"}, "in a line comment"},
		{"SELECT /* ; /* nested ; */ DELETE */ 1", []string{"read"}, "in a nested block comment"},
		{"DO $$BEGIN DELETE FROM t; COMMIT; END$$", []string{"write"}, "a dollar-quoted body is one string"},
		{"CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; SELECT f()", []string{"write", "read"}, "a tagged dollar quote"},
		{"SELECT $1::int; SELECT a$b FROM t", []string{"read", "read"}, "parameters and dollars in names are not quotes"},
		{`SELECT E'it\'s;'; DELETE FROM t`, []string{"read", "write"}, "a backslash escape in E''"},
		{"SELECT 'it''s;'; DELETE FROM t", []string{"read", "write"}, "a doubled quote"},
		{"WITH a AS (SELECT 1) SELECT * FROM a", []string{"read"}, "a WITH that reads"},
		{"WITH a AS (INSERT INTO t VALUES (1) RETURNING id) SELECT * FROM a", []string{"write"}, "a WITH that inserts"},
		{"WITH a AS (SELECT 1) UPDATE t SET x = 1", []string{"write"}, "a WITH whose statement updates"},
		{"WITH a AS (SELECT * FROM t FOR UPDATE) SELECT * FROM a", []string{"read"}, "FOR UPDATE is a lock, not a write"},
		{"COPY t FROM STDIN", []string{"write"}, "COPY in"},
		{"COPY (SELECT * FROM t WHERE a IN (SELECT b FROM u)) TO STDOUT", []string{"read"}, "COPY out"},
		{"SELECT * FROM t FOR UPDATE", []string{"read"}, "a locking read"},
		{"TRUNCATE t; DROP TABLE t; CALL p(); EXECUTE s(1)", []string{"write", "write", "write", "write"}, "other writes"},
		{"SET search_path = x; SHOW x; EXPLAIN SELECT 1", []string{"read", "read", "read"}, "neither"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, kinds(tc.sql), "%s: %q", tc.why, tc.sql)
	}
	got := splitStatements(" INSERT INTO t VALUES ('idem-0000000000000001') ; SELECT 2 ")
	assert.Equal(t, "INSERT INTO t VALUES ('idem-0000000000000001')", got[0].text)
	assert.Equal(t, "SELECT 2", got[1].text)
}

// FuzzSplitStatements: any text splits without a panic into statements
// that are pieces of it.
func FuzzSplitStatements(f *testing.F) {
	for _, s := range []string{"SELECT 1; INSERT INTO t VALUES ('a;b')", "DO $x$ ; $x$", "/* /* */", "E'\\", "$$", "WITH a AS (DELETE", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, s := range splitStatements(sql) {
			if !strings.Contains(sql, s.text) || s.text == "" {
				t.Fatalf("statement %q is not a non-empty piece of %q", s.text, sql)
			}
		}
	})
}
