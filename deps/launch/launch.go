package launch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/postgres"
	"github.com/idemcheck/idemcheck/deps/redis"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/redisserver"
)

// The protocols a dependency may speak.
const (
	Postgres = "postgres"
	Redis    = "redis"
)

// Protocols lists the protocols a dependency may speak.
var Protocols = []string{Postgres, Redis}

// ErrUntestable wraps every error that says the dependency, as declared,
// cannot be put behind a proxy: the harness calls the target untestable.
var ErrUntestable = errors.New("the dependency cannot be tested through a proxy")

// Spec declares one dependency.
type Spec struct {
	// Name names it: {{deps.NAME.url}}.
	Name string
	// Protocol is Postgres or Redis.
	Protocol string
	// URL is the real database's URL (postgres://user:pw@host:port/db?…,
	// redis://host:port/N); empty starts a throwaway one.
	URL string
	// InFlight attributes the statements that carry no marker, outside a
	// transaction that does, to the intent in flight (the one attempt
	// running), for a target that stores no marker with its writes. By
	// default only the markers attribute: a write carrying the marker
	// (and its transaction) is the intent's, and the statements around
	// it (a key's claim, a lookup) are left alone.
	InFlight bool
}

// Dependency is a started dependency: its database and the proxy in front
// of it.
type Dependency struct {
	// Name and Protocol are the Spec's.
	Name, Protocol string
	// URL is the database's URL with the proxy's host and port: what the
	// target is handed.
	URL string
	// DirectURL is the database's own URL, for what must not go through
	// the proxy (an observer counting the target's rows).
	DirectURL string
	// Proxy is the proxy the harness arms faults in.
	Proxy deps.Proxy
	// InFlight is the Spec's.
	InFlight bool

	stop func() error
	once sync.Once
	err  error
}

// Addr is the proxy's host:port.
func (d *Dependency) Addr() string { return d.Proxy.Addr() }

// Close stops the proxy, then the throwaway database if there is one
// (dropped, and its server stopped once no other dependency uses it).
func (d *Dependency) Close() error {
	d.once.Do(func() {
		d.err = d.Proxy.Close()
		if d.stop != nil {
			if err := d.stop(); err != nil && d.err == nil {
				d.err = err
			}
		}
	})
	return d.err
}

// Start starts s's database when it is a throwaway one, then the proxy in
// front of it. On an error it has stopped what it started; an error that
// wraps ErrUntestable says why the target cannot be tested this way.
func Start(ctx context.Context, s Spec) (*Dependency, error) {
	switch s.Protocol {
	case Postgres, Redis:
	default:
		return nil, fmt.Errorf("%w: dependency %s: protocol %q is not spoken by any proxy (known: %s)", ErrUntestable, s.Name, s.Protocol, strings.Join(Protocols, ", "))
	}
	direct, stop := s.URL, func() error { return nil }
	if direct == "" {
		var err error
		if direct, stop, err = throwaway(ctx, s.Protocol); err != nil {
			return nil, fmt.Errorf("dependency %s: starting a throwaway %s: %w", s.Name, s.Protocol, err)
		}
	} else if err := requiresTLS(direct); err != nil {
		return nil, fmt.Errorf("%w: dependency %s: %v", ErrUntestable, s.Name, err)
	}
	d, err := front(ctx, s, direct)
	if err != nil {
		_ = stop()
		return nil, err
	}
	d.stop = stop
	d.InFlight = s.InFlight
	return d, nil
}

// front starts the proxy in front of the database at direct.
func front(ctx context.Context, s Spec, direct string) (*Dependency, error) {
	u, err := url.Parse(direct)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("dependency %s: the URL does not parse as scheme://host:port/…", s.Name)
	}
	host := u.Host
	if u.Port() == "" {
		port := "5432"
		if s.Protocol == Redis {
			port = "6379"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	var p deps.Proxy
	switch s.Protocol {
	case Postgres:
		p, err = postgres.Start(ctx, postgres.Config{Upstream: host})
	case Redis:
		p, err = redis.Start(ctx, redis.Config{Upstream: host})
	}
	if err != nil {
		return nil, fmt.Errorf("%w: dependency %s (%s at %s): %v", ErrUntestable, s.Name, s.Protocol, host, err)
	}
	proxied, err := deps.ReplaceHost(direct, p.Addr())
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	return &Dependency{Name: s.Name, Protocol: s.Protocol, URL: proxied, DirectURL: direct, Proxy: p}, nil
}

// requiresTLS says why a URL that asks for TLS to the database cannot be
// proxied: the proxies speak plain text.
func requiresTLS(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // front says so
	}
	if u.Scheme == "rediss" {
		return fmt.Errorf("the URL asks for TLS (rediss://), and the proxy speaks plain text only: give the database's plain-text address")
	}
	switch mode := u.Query().Get("sslmode"); mode {
	case "require", "verify-ca", "verify-full":
		return fmt.Errorf("the URL requires TLS (sslmode=%s), and the proxy speaks plain text only: use sslmode=prefer or disable for the test", mode)
	}
	return nil
}

// The throwaway PostgreSQL server, shared by the dependencies that use it.
var pg struct {
	mu    sync.Mutex
	srv   *pgserver.Server
	users int
	seq   atomic.Uint64
}

// SharedPostgres holds the throwaway PostgreSQL server that the
// dependencies without a URL share, starting it if none runs, until
// release is called: a program that runs many targets on throwaway
// databases (the demo) holds it for the whole run, so that one server
// serves them all instead of one started and stopped per target, and
// creates its own databases on it.
func SharedPostgres(ctx context.Context) (*pgserver.Server, func() error, error) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.srv == nil {
		s, err := pgserver.Start(ctx)
		if err != nil {
			return nil, nil, err
		}
		pg.srv = s
	}
	pg.users++
	s := pg.srv
	var once sync.Once
	return s, func() error {
		var err error
		once.Do(func() {
			pg.mu.Lock()
			defer pg.mu.Unlock()
			pg.users--
			err = release() // the package's: stops the server once unused
		})
		return err
	}, nil
}

// throwaway starts a throwaway database for protocol and returns its URL
// and what removes it.
func throwaway(ctx context.Context, protocol string) (string, func() error, error) {
	if protocol == Redis {
		s, err := redisserver.Start(ctx)
		if err != nil {
			return "", nil, err
		}
		return s.URL(0), s.Stop, nil
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.srv == nil {
		s, err := pgserver.Start(ctx)
		if err != nil {
			return "", nil, err
		}
		pg.srv = s
	}
	name := fmt.Sprintf("idemcheck_%d", pg.seq.Add(1))
	dsn, err := pg.srv.CreateDatabase(ctx, name)
	if err != nil {
		release()
		return "", nil, err
	}
	pg.users++
	return dsn, func() error {
		pg.mu.Lock()
		defer pg.mu.Unlock()
		err := dropDatabase(pg.srv, name)
		pg.users--
		if pg.users == 0 {
			if serr := release(); err == nil {
				err = serr
			}
		}
		return err
	}, nil
}

// release stops the shared server when nothing uses it; pg.mu is held.
func release() error {
	if pg.users > 0 || pg.srv == nil {
		return nil
	}
	err := pg.srv.Stop()
	pg.srv = nil
	return err
}

// dropDatabase drops name, ending what is still connected to it.
func dropDatabase(s *pgserver.Server, name string) error {
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
	defer cancel()
	if _, err := db.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
		return fmt.Errorf("dropping the throwaway database %s: %w", name, err)
	}
	return nil
}

// dropTimeout bounds the drop of a throwaway database.
const dropTimeout = 10 * time.Second
