package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/examples"
)

// BenchmarkReferenceStart measures a start of a reference target, the
// cost paid by every call of a reference command-line tool and every start
// of a reference server: `__example ordertool --help`, run to its end, one
// after the other. "program" is the idemcheck binary, built once, as
// `idemcheck demo` starts it; "test-binary" is this package's test binary,
// as the tests start it (TestMain). cpu-ms/start is the processor time of
// the started process (user and system), which does not depend on how
// busy the machine is as much as the time per start does.
func BenchmarkReferenceStart(b *testing.B) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("the Go toolchain is needed to build idemcheck: go is not on PATH")
	}
	prog := filepath.Join(b.TempDir(), "idemcheck")
	out, err := exec.Command(goTool, "build", "-o", prog, "github.com/idemcheck/idemcheck/cmd/idemcheck").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, bin := range []struct{ name, path string }{{"program", prog}, {"test-binary", self}} {
		b.Run(bin.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin.path, examples.Subcommand, "ordertool", "--help")
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatalf("%s: %v (%d bytes out)", cmd, err, len(out))
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/start")
		})
	}
}
