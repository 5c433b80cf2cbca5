package pgserver

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"

	"github.com/idemcheck/idemcheck/targets/process"
)

// ErrNotInstalled is returned (wrapped) when no PostgreSQL server binaries
// are found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed")

// BinEnv names the environment variable that, when set, is the only
// directory Find looks in (to choose a version, or none).
const BinEnv = "IDEMCHECK_PG_BIN"

// Find returns the directory that holds initdb and postgres: $IDEMCHECK_PG_BIN
// when set, else PATH, then the newest /usr/lib/postgresql/VERSION/bin.
func Find() (string, error) {
	if d, ok := os.LookupEnv(BinEnv); ok {
		if isExec(filepath.Join(d, "postgres")) && isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
		return "", fmt.Errorf("%w: no postgres and initdb in $%s (%s)", ErrNotInstalled, BinEnv, d)
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				return filepath.Dir(real), nil
			}
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "postgres")) && isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no postgres and initdb on PATH or under /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)", ErrNotInstalled)
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Server is a running PostgreSQL server.
type Server struct {
	// Port is its TCP port on 127.0.0.1.
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	out  *lockedBuffer

	stopOnce sync.Once
	stopErr  error
}

// Start initialises a data directory and starts a server in it, and
// returns once it accepts connections.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "idemcheck-pg-")
	if err != nil {
		return nil, err
	}
	cred, err := credential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	initdb.Dir = dir
	initdb.WaitDelay = time.Second
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, tail(out))
	}
	port, err := process.FreePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{Port: port, dir: dir, done: make(chan struct{}), out: &lockedBuffer{}}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=500", "-c", "shared_buffers=32MB",
		// Dynamic shared memory as files of the data directory, not
		// segments in /dev/shm: a server killed with idemcheck cannot
		// remove its segments, and the directory goes with the run.
		"-c", "dynamic_shared_memory_type=mmap")
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	s.cmd.WaitDelay = time.Second
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.awaitReady(ctx, 60*time.Second); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// credential returns who the server runs as: the caller, or, for root,
// the postgres user (else nobody), who then owns dir.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("running as root, and neither a postgres nor a nobody user to run PostgreSQL as")
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) awaitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		err := db.PingContext(pctx)
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited before it was ready: %s", tail(s.out.Bytes()))
		case <-ctx.Done():
			return fmt.Errorf("postgres not ready after %s: %v: %s", limit, err, tail(s.out.Bytes()))
		case <-tick.C:
		}
	}
}

// DSN returns the URL of database db on the server, as the superuser.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// CreateDatabase creates database name and returns its DSN.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	db, err := sql.Open("pgx", s.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.DSN(name), nil
}

// Output returns what the server has printed.
func (s *Server) Output() string { return string(s.out.Bytes()) }

// Stop shuts the server down (fast shutdown, then SIGKILL after 10s) and
// removes its data directory.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		if s.cmd.Process != nil {
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
				<-s.done
				s.stopErr = fmt.Errorf("postgres did not stop within 10s of SIGINT; killed")
			}
		}
		if err := os.RemoveAll(s.dir); err != nil && s.stopErr == nil {
			s.stopErr = err
		}
	})
	return s.stopErr
}

// Must starts a server for the test and stops it when the test ends. It
// skips the test, saying why, when PostgreSQL is not installed.
func Must(tb testing.TB) *Server {
	tb.Helper()
	if _, err := Find(); err != nil {
		tb.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := Start(ctx)
	if err != nil {
		tb.Fatalf("starting PostgreSQL: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	return s
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil // enough to say why it failed
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return string(b)
}
