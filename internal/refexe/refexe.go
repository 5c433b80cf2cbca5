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

// pkg is the program's package.
const pkg = "github.com/idemcheck/idemcheck/examples/reference/cmd/reference"

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
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

// Remove deletes the program Path built; a TestMain calls it once the
// tests are over.
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
