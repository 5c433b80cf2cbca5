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
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
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
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are all the problems found in one file, sorted by position.
type Errors []*Error

// Error lists the errors, one per line.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, err := range e {
		lines[i] = err.Error()
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
