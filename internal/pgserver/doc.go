// Package pgserver starts a real PostgreSQL server for the tests and the
// demo: the distribution's own binaries (initdb and postgres, found on PATH
// or under /usr/lib/postgresql/VERSION/bin), a fresh data directory in a
// temporary directory, a free port on 127.0.0.1 and no Unix socket. The
// server runs in its own process group, dies with the process that started
// it, and Stop removes every trace of it. Run as root, it runs as the
// "postgres" user (initdb refuses root).
package pgserver
