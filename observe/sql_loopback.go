package observe

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPG opens the pool of a checked configuration (a variable so that a
// test can count the connections it makes).
var openPG = func(cfg pgx.ConnConfig) *sql.DB { return stdlib.OpenDB(cfg) }

// pgConfig parses a PostgreSQL DSN as pgx will use it (the environment's
// PG* variables and service file included) and, unless remote is allowed,
// refuses one that names a host off loopback, then keeps every connection
// on loopback: "localhost" is taken as 127.0.0.1 and ::1 without asking
// DNS, and a dial to any address that is not loopback is refused.
func pgConfig(dsn string, remote bool) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's error may quote the DSN, password and all.
		return nil, fmt.Errorf("the dsn %s is not a PostgreSQL connection URL pgx understands; write postgres://user@127.0.0.1:5432/db", redact(dsn))
	}
	if remote {
		return cfg, nil
	}
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if !loopbackHost(h) {
			return nil, fmt.Errorf("the dsn %s names the host %q, which is not loopback: idemcheck only reads databases on this machine (127.0.0.1, ::1, localhost or a Unix socket) unless the target sets allow_remote: true", redact(dsn), h)
		}
	}
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if network != "unix" && !loopbackAddr(addr) {
			return nil, fmt.Errorf("refusing to connect to %s: not a loopback address (the target does not set allow_remote)", addr)
		}
		return dial(ctx, network, addr)
	}
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) {
		if strings.EqualFold(host, "localhost") {
			return []string{"127.0.0.1", "::1"}, nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return []string{host}, nil
		}
		return nil, fmt.Errorf("refusing to look up %q: not a loopback host (the target does not set allow_remote)", host)
	}
	return cfg, nil
}

// loopbackHost reports whether a PostgreSQL host stays on this machine: a
// Unix socket directory, the name localhost (never resolved), or a
// loopback IP address.
func loopbackHost(h string) bool {
	if strings.HasPrefix(h, "/") || strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// loopbackAddr reports whether host:port has a loopback IP address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
