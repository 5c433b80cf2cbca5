package section

import (
	"fmt"
	"net/netip"
	"strings"
)

// Problem is one thing a check found wrong, at a path of the file.
type Problem struct {
	Path string
	Msg  string
}

// File is what a Checker knows of the whole file: where each value is
// written, which ones the schema already refused, the environment, and
// the fakes it configures. Package config makes it.
type File struct {
	// Written says whether the file has a value at path, even an empty
	// one.
	Written func(path string) bool
	// Refused says whether the value at path, or one containing it, was
	// refused already (by the schema); checks stay quiet about it.
	Refused func(path string) bool
	// Line is the line of the value at path, or of the nearest one that
	// contains it.
	Line func(path string) int
	// LookupEnv reads idemcheck's environment (os.LookupEnv).
	LookupEnv func(name string) (string, bool)
	// Fakes are the placeholders of the fakes a file may configure
	// ("fakes.email.smtp"), each with its fake's name.
	Fakes []FakePlaceholder
	// Configured says whether the file configures the fake called name.
	Configured func(name string) bool
	// Deps are the names of the dependencies the target being checked
	// declares ({{deps.NAME.url}}).
	Deps []string
	// Delta says whether the target being checked declares a count
	// observer: its effects are attributed by delta, to the intent in
	// flight, so its requests need not carry {{marker}}.
	Delta bool

	problems []Problem
	env      map[string]string
}

// FakePlaceholder is one placeholder a fake fills in.
type FakePlaceholder struct {
	Name string // "fakes.email.smtp"
	Fake string // "email"
}

// Problems returns what the checks found, in the order found.
func (f *File) Problems() []Problem { return f.problems }

// Env returns the values of the {{env.NAME}} variables the checks read.
func (f *File) Env() map[string]string { return f.env }

// Checker reports problems about the value at one path of a file.
type Checker struct {
	file *File
	path string
}

// NewChecker returns a checker of the value at path in f.
func NewChecker(f *File, path string) *Checker { return &Checker{file: f, path: path} }

// ByDelta reports whether the target being checked attributes its
// effects by delta (it declares a count observer).
func (c *Checker) ByDelta() bool { return c.file.Delta }

// Path is the path of the value checked.
func (c *Checker) Path() string { return c.path }

// Field returns the checker of field name.
func (c *Checker) Field(name string) *Checker { return &Checker{c.file, PathField(c.path, name)} }

// Index returns the checker of item i.
func (c *Checker) Index(i int) *Checker { return &Checker{c.file, PathIndex(c.path, i)} }

// Key returns the checker of map entry key.
func (c *Checker) Key(key string) *Checker { return &Checker{c.file, PathKey(c.path, key)} }

// Errorf reports a problem with the value, unless the value (or one
// containing it) was refused already.
func (c *Checker) Errorf(format string, args ...any) {
	if c.Refused() {
		return
	}
	c.file.problems = append(c.file.problems, Problem{c.path, fmt.Sprintf(format, args...)})
}

// Missing reports a value that is needed but absent or empty.
func (c *Checker) Missing(hint string) {
	if c.Written() {
		c.Errorf("must not be empty: %s", hint)
	} else {
		c.Errorf("missing: %s", hint)
	}
}

// Written says whether the file writes the value, even an empty one.
func (c *Checker) Written() bool { return c.file.Written(c.path) }

// Refused says whether the value, or one containing it, was refused
// already.
func (c *Checker) Refused() bool { return c.file.Refused(c.path) }

// Line returns the line the value is written at.
func (c *Checker) Line() int { return c.file.Line(c.path) }

// Unique reports each name of names (the field field of the list items
// at c) used by an earlier item, naming it and its line; thing names
// the items in the message ("operation"). Empty names are skipped.
func (c *Checker) Unique(thing, field string, names []string, within string) {
	first := map[string]int{}
	for i, n := range names {
		if n == "" {
			continue
		}
		if j, dup := first[n]; dup {
			c.Index(i).Field(field).Errorf("duplicate %s name %q (already used by %s at line %d); %s names must be unique%s",
				thing, n, PathIndex(lastName(c.path), j), c.Index(j).Field(field).Line(), thing, within)
			continue
		}
		first[n] = i
	}
}

// lastName is the last field of a path: "operations" of
// "targets[0].operations".
func lastName(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// IsLoopback says whether host is this machine: localhost, or a loopback
// address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}
