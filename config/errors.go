package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in a configuration file, located at the YAML node
// that causes it.
type Error struct {
	File   string // the name given to Load or Parse
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Path   string // the field, e.g. targets[0].operations[1].method; empty for the whole file
	Msg    string // what is wrong and what to do about it
}

// Error formats the error as FILE:LINE:COLUMN: PATH: MSG, leaving out the
// parts that are unknown.
func (e *Error) Error() string { return e.Format(nil) }

// Format is Error with each part (the file, the field's path, the
// message) passed through clean, when it is not nil, on its own: text
// that looks like a credential only where two parts meet (a field named
// secret, then the message) is not taken for one.
func (e *Error) Format(clean func(string) string) string {
	if clean == nil {
		clean = func(s string) string { return s }
	}
	var b strings.Builder
	b.WriteString(clean(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(clean(shortPath(e.Path)))
		b.WriteString(": ")
	}
	b.WriteString(clean(e.Msg))
	return b.String()
}

// Errors are all the problems found in one file, sorted by position.
type Errors []*Error

// maxListed is how many errors Errors.Error lists; the rest are counted.
const maxListed = 50

// maxPath is the longest field path an error prints whole: a longer one
// (a file nested thousands of levels deep) keeps its two ends.
const maxPath = 200

// shortPath is p, its middle left out when it is over maxPath bytes.
func shortPath(p string) string {
	if len(p) <= maxPath {
		return p
	}
	return strings.ToValidUTF8(p[:maxPath/2], "") + "…" + strings.ToValidUTF8(p[len(p)-maxPath/2:], "")
}

// Error lists the errors, one per line: the first maxListed, then how
// many more there are.
func (e Errors) Error() string { return e.Format(nil) }

// Format is Error with each part of each error passed through clean (see
// Error.Format).
func (e Errors) Format(clean func(string) string) string {
	lines := make([]string, 0, min(len(e), maxListed)+1)
	for i, err := range e {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("… and %d more problems: fix these first", len(e)-maxListed))
			break
		}
		lines = append(lines, err.Format(clean))
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.As access to each *Error.
func (e Errors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

// sort orders the errors by position; errors at the same position keep
// the order in which they were found.
func (e Errors) sort() {
	slices.SortStableFunc(e, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// asError turns a non-empty list into an error, and an empty one into nil
// (not a non-nil error interface holding an empty list).
func (e Errors) asError() error {
	if len(e) == 0 {
		return nil
	}
	return e
}
