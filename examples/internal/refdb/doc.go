// Package refdb opens the database of a reference target that keeps its
// effects in PostgreSQL or SQLite (examples/ledger, examples/mcpdb,
// examples/clidb): one DSN form for both, SQLite set up for several
// processes at once (a busy timeout, WAL), the schema created by whichever
// process gets there first.
package refdb
