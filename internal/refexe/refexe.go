package refexe

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Subcommand is the hidden idemcheck subcommand of the reference targets,
// which the program also accepts: a command line made for the idemcheck
// binary runs unchanged with it.
const Subcommand = "__example"

// pkg is the program's package; programs holds the programs that each
// carry one reference target, in the directory named after it.
const (
	pkg      = "github.com/idemcheck/idemcheck/examples/reference/cmd/reference"
	programs = "github.com/idemcheck/idemcheck/examples/reference/cmd/"
)

var built struct {
	once sync.Once
	dir  string
	path string
	err  error

	// alone are the programs of one target built so far (see Alone).
	mu    sync.Mutex
	alone map[string]string
}

// Path returns the path of the reference program, built on first use;
// run it as PATH [__example] NAME [flags]. Without a go command on PATH
// (go test puts its own there) it returns the test binary itself, whose
// TestMain must then run the reference targets under Subcommand. A
// failed build fails the test.
func Path(tb testing.TB) string {
	tb.Helper()
	path, err := Program()
	if err != nil {
		tb.Fatalf("building the reference targets: %v", err)
	}
	return path
}

// Program is Path for a caller without a testing.TB, such as a TestMain:
// the program's path, or why it could not be built.
func Program() (string, error) {
	built.once.Do(build)
	return built.path, built.err
}

func build() {
	goTool, err := exec.LookPath("go")
	if err != nil {
		built.path, built.err = os.Executable()
		return
	}
	built.dir, built.err = os.MkdirTemp("", "idemcheck-reference-")
	if built.err != nil {
		return
	}
	path := filepath.Join(built.dir, "reference")
	cmd := exec.Command(goTool, "build", "-o", path, pkg)
	// Built for the machine the tests run on, whatever the test binary
	// was built with (-race, -cover).
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		built.err = &buildError{err: err, out: out}
		return
	}
	built.path = path
}

// Alone returns the path of the program that carries the reference
// target name alone (examples/reference/cmd/NAME: a command-line tool, an
// MCP server or the shop), built on first use beside the reference
// program, with the reference program's command line: the demo starts
// these targets from such programs, which start at less cost. Without a
// go command on PATH it returns what Path does. A failed build fails
// the test.
func Alone(tb testing.TB, name string) string {
	tb.Helper()
	exe := Path(tb)
	if built.dir == "" {
		return exe // the test binary: no go command
	}
	built.mu.Lock()
	defer built.mu.Unlock()
	if path, ok := built.alone[name]; ok {
		return path
	}
	path := filepath.Join(built.dir, name)
	cmd := exec.Command("go", "build", "-o", path, programs+name)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building the program of the reference target %s: %v", name, &buildError{err: err, out: out})
	}
	if built.alone == nil {
		built.alone = map[string]string{}
	}
	built.alone[name] = path
	return path
}

// Remove deletes the programs Path and Alone built; a TestMain calls it
// once the tests are over.
func Remove() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + ": " + string(e.out) }
