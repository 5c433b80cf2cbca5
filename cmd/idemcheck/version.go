package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// modulePath is idemcheck's module.
const modulePath = "github.com/idemcheck/idemcheck"

// devVersion is idemcheck's version when the build does not say which
// (a build from a checkout rather than go install module@version, whose
// module version is "(devel)"): what idemcheck version prints and every
// report records then.
const devVersion = "0.1.0-dev"

// buildInfo is what the binary knows of how it was built.
type buildInfo struct {
	// Version is the module version (v1.2.3, or a pseudo-version), or
	// "(devel)" for a build from a checkout, or "" when the binary
	// carries no build information.
	Version string
	// Revision, Time and Modified come from the version control system,
	// when the build recorded them.
	Revision string
	Time     string
	Modified bool
	// Go is the toolchain that built it.
	Go string
}

// readBuildInfo reads the binary's build information.
func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return buildInfo{}
	}
	out := buildInfo{Go: bi.GoVersion}
	if bi.Main.Path == modulePath {
		out.Version = bi.Main.Version
	} else {
		// Built as another module's dependency (a go.mod tool directive,
		// go run from a tools module): its version is in the dependencies.
		for _, d := range bi.Deps {
			if d.Path != modulePath {
				continue
			}
			out.Version = d.Version
			if r := d.Replace; r != nil {
				out.Version = r.Version
				if r.Version == "" {
					out.Version = "(devel)" // replaced by a directory
				}
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Revision = s.Value
		case "vcs.time":
			out.Time = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	return out
}

// released reports whether the binary was built as a module version
// (go install …@latest, @v1.2.3, or a pseudo-version).
func (b buildInfo) released() bool { return b.Version != "" && b.Version != "(devel)" }

// version is the version of the idemcheck built as b: the module
// version it was built as, else devVersion.
func (b buildInfo) version() string {
	if b.released() {
		return b.Version
	}
	return devVersion
}

// version is this idemcheck's version, the one idemcheck version prints
// and every report records (record.Meta.Version).
func version() string { return readBuildInfo().version() }

// versionText says which idemcheck this is, for idemcheck version: its
// version (b.version, as the reports say it), and, for a build from a
// checkout, that it is one and at which revision.
func versionText(b buildInfo) string {
	s := "idemcheck " + b.version()
	switch {
	case b.released():
	case b.Revision != "":
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += ", built from a checkout at revision " + rev
		if b.Time != "" {
			s += " (" + b.Time + ")"
		}
		if b.Modified {
			s += " with uncommitted changes"
		}
	default:
		s += ", built from a checkout without version control information"
	}
	if b.Go != "" {
		s += ", " + b.Go
	}
	return s + "\n"
}

// cmdVersion prints versionText.
func cmdVersion(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("version: unexpected argument %q", fs.Arg(0))
	}
	_, err := fmt.Fprint(stdout, versionText(readBuildInfo()))
	return err
}
