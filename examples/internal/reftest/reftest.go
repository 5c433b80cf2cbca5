package reftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/refprofile"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/pgserver"
	"github.com/idemcheck/idemcheck/internal/refexe"
	"github.com/idemcheck/idemcheck/targets/process"
)

// ServeArg is the first argument of a test binary run as the target.
const ServeArg = "__serve"

// target is the name of the package's reference target, as the
// reference program takes it (TestMain).
var target string

// TestMain runs m, or, when the binary was started as the target, the
// target's main; name is the target's name in the reference program
// (package reference). It stops the shared PostgreSQL server and removes
// the reference program at the end.
func TestMain(m *testing.M, name string, main func(args []string) int) {
	target = name
	if len(os.Args) > 1 && os.Args[1] == ServeArg {
		os.Exit(main(os.Args[2:]))
	}
	// Built with -race, every target process would sleep a second at exit.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	process.PassOn("GORACE")
	code := m.Run()
	if pg.server != nil {
		_ = pg.server.Stop()
	}
	refexe.Remove()
	os.Exit(code)
}

// Command returns the start of the command line that runs the package's
// reference target as a process of its own, its flags to follow: the
// reference program with the target's name (refexe), or, without the go
// command, this test binary with ServeArg.
func Command(t testing.TB) []string {
	t.Helper()
	exe := refexe.Path(t)
	if self, err := os.Executable(); err == nil && self == exe {
		return []string{exe, ServeArg}
	}
	return []string{exe, target}
}

var pg struct {
	once   sync.Once
	server *pgserver.Server
	err    error
	n      atomic.Int64
}

// Postgres returns the DSN of a fresh database on the package's shared
// PostgreSQL server, started on first use. It skips the test when
// PostgreSQL is not installed.
func Postgres(t testing.TB) string {
	t.Helper()
	if _, err := pgserver.Find(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	pg.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		pg.server, pg.err = pgserver.Start(ctx)
	})
	if pg.err != nil {
		t.Fatalf("starting PostgreSQL: %v", pg.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := pg.server.CreateDatabase(ctx, fmt.Sprintf("ref%d", pg.n.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Server is a target serving HTTP on loopback, its output watched.
type Server struct {
	URL   string
	Addr  string
	Proc  *process.Process
	lines *Lines
}

// StartHTTP starts the target with args and --listen on a free loopback
// port, and returns once GET /healthz answers. It is stopped when the
// test ends.
func StartHTTP(t testing.TB, args ...string) *Server {
	t.Helper()
	port, err := process.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return StartHTTPAt(t, "127.0.0.1:"+strconv.Itoa(port), args...)
}

// StartHTTPAt is StartHTTP on addr: a target started again where it
// listened before.
func StartHTTPAt(t testing.TB, addr string, args ...string) *Server {
	t.Helper()
	lines := &Lines{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := process.Start(ctx, process.Spec{
		Command: append(append(Command(t), args...), "--listen", addr),
		Ready:   process.Ready{URL: "http://" + addr + "/healthz", Timeout: 30 * time.Second},
		Stdout:  lines,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.Stop(ctx)
	})
	return &Server{URL: "http://" + addr, Addr: addr, Proc: p, lines: lines}
}

// Await waits until the target has printed a line holding s since its
// last restart, within d.
func (s *Server) Await(t testing.TB, text string, d time.Duration) {
	t.Helper()
	if !s.lines.Await(text, d) {
		t.Fatalf("the target did not print %q within %s; it printed:\n%s", text, d, s.Proc.Output())
	}
}

// Kill SIGKILLs the target (a crash) and returns once it is dead; a test
// starts it again with StartHTTPAt, as a supervisor would.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if err := s.Proc.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.Proc.Exited()
}

// Lines is an io.Writer that tells when a text has been written.
type Lines struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

// Write implements io.Writer.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return len(p), nil
}

// Reset forgets what was written.
func (l *Lines) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
}

// Await waits until text has been written, within d.
func (l *Lines) Await(text string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		if strings.Contains(l.buf.String(), text) {
			l.mu.Unlock()
			return true
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// Result is one run of a command-line target.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

// Run runs the target once with args, as a command-line tool is run, and
// returns its exit code and output. It fails the test when the process
// cannot run or does not end within a minute.
func Run(t testing.TB, args ...string) Result {
	t.Helper()
	argv := append(Command(t), args...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running the target: %v (stderr: %s)", err, errb.String())
	}
	return Result{Code: cmd.ProcessState.ExitCode(), Stdout: out.String(), Stderr: errb.String()}
}

// Verify scores spec with the harness, as idemcheck run does, with a
// fixed seed, and returns its result, its findings logged; the test
// fails if the target could not be judged.
func Verify(t testing.TB, spec harness.Spec, opts ...harness.Option) harness.TargetResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, []harness.Spec{spec}, append([]harness.Option{harness.WithSeed(7)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Targets[0]
	for _, f := range tr.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Check, f.Message)
	}
	if tr.Error != "" {
		t.Fatalf("%s could not be judged: %s", spec.Name, tr.Error)
	}
	return tr
}

// Failing returns the ids of the checks that failed, sorted.
func Failing(tr harness.TargetResult) []string {
	var ids []string
	for _, c := range tr.Checks {
		if c.Status == harness.StatusFail {
			ids = append(ids, c.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// Scores holds the harness to what each profile is built for: spec makes
// the harness spec of a profile, describe says what it should score and
// which checks it fails (all of them, or at least those when its flaw is
// racy). The profiles are judged in one run, side by side within the
// processors' time, as the demo judges its targets: each spends most of
// its time waiting (a late retry's delay, a restart), and a target's
// verdict follows from the seed and its name alone, whatever runs beside
// it.
func Scores(t *testing.T, profiles []string, describe func(string) (refprofile.Info, error), spec func(t *testing.T, profile string) harness.Spec, opts ...harness.Option) {
	t.Helper()
	if testing.Short() {
		t.Skip("a full harness run per profile")
	}
	specs := make([]harness.Spec, len(profiles))
	for i, profile := range profiles {
		specs[i] = spec(t, profile)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := harness.Verify(ctx, specs, append([]harness.Option{harness.WithSeed(7),
		harness.WithParallel(len(specs)), harness.WithCPUBudget(0.9)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != len(specs) {
		t.Fatalf("%d results for %d profiles", len(res.Targets), len(specs))
	}
	for i, profile := range profiles {
		t.Run(profile, func(t *testing.T) {
			info, err := describe(profile)
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Targets[i]
			for _, f := range tr.Findings {
				t.Logf("%s %s: %s", f.Severity, f.Check, f.Message)
			}
			if tr.Error != "" {
				t.Fatalf("%s could not be judged: %s", specs[i].Name, tr.Error)
			}
			if tr.Name != specs[i].Name {
				t.Fatalf("result %d is %q, not %q: results come in the order of the specs", i, tr.Name, specs[i].Name)
			}
			if tr.Score.Level != info.Score {
				t.Errorf("scored %d, built for %d: %s", tr.Score.Level, info.Score, tr.Score.Reason)
			}
			failing := Failing(tr)
			if info.Racy {
				for _, id := range info.Failing {
					if !slices.Contains(failing, id) {
						t.Errorf("%s did not fail (failing: %v)", id, failing)
					}
				}
				return
			}
			if !slices.Equal(failing, info.Failing) {
				t.Errorf("failing %v, built to fail %v", failing, info.Failing)
			}
		})
	}
}
