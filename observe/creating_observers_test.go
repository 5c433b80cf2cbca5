package observe_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
)

// This file is the worked example of CREATING_OBSERVERS.md: a source of
// its own, registered in a registry of the test's, then proven both ways.
// It is not one of idemcheck's sources.

// Lines reads a plain-text log: each line holding the marker is one
// effect, identified by its line number.
type Lines struct {
	// Path is the log; it may use {{state_dir}} and {{env.NAME}}.
	Path string `json:"path"`
}

// Type implements observe.Source.
func (Lines) Type() string { return "lines" }

// EffectKind implements observe.EffectKind.
func (Lines) EffectKind() string { return "line" }

// Validate implements observe.Validator.
func (l Lines) Validate() error {
	if l.Path == "" {
		return errors.New("path: required: the log the target appends to")
	}
	return nil
}

// Open implements observe.Source.
func (l Lines) Open(_ context.Context, w observe.Where) (observe.Finder, error) {
	p, err := w.Expand(l.Path)
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	return linesFinder{path: p}, nil
}

type linesFinder struct{ path string }

// maxLine bounds one line of the log.
const maxLine = 64 << 10

func (f linesFinder) lines() ([]string, error) {
	fh, err := os.Open(f.path) // read-only
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 4096), maxLine)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", f.path, len(out)+1, err)
	}
	return out, nil
}

// Find implements observe.Finder.
func (f linesFinder) Find(_ context.Context, marker string) (observe.Found, error) {
	all, err := f.lines()
	if errors.Is(err, fs.ErrNotExist) {
		return observe.Found{Absent: f.path}, nil // not written yet
	}
	var rows []observe.Row
	for i, line := range all {
		if strings.Contains(line, marker) {
			rows = append(rows, observe.Row{ID: strconv.Itoa(i + 1)})
		}
	}
	return observe.Found{Rows: rows}, err
}

// Measure implements observe.Measurer: the log's lines, or how many.
func (f linesFinder) Measure(_ context.Context, rows bool) (observe.Reading, error) {
	all, err := f.lines()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return observe.Reading{}, err
	}
	r := observe.Reading{Rows: rows, Number: float64(len(all))}
	if rows {
		for i := range all {
			r.IDs = append(r.IDs, strconv.Itoa(i+1))
		}
	}
	return r, nil
}

// registry is idemcheck's sources and the example's.
func registry() *observe.Registry {
	r := observe.Builtin()
	r.Register(observe.Descriptor{Name: "lines", Summary: "lines of a plain-text log", New: func() observe.Source { return &Lines{} }})
	return r
}

func TestCreatingObserversExample(t *testing.T) {
	r := registry()
	t.Run("contract", func(t *testing.T) {
		d, ok := r.Describe("lines")
		require.True(t, ok)
		assert.Equal(t, "lines", d.New().Type())
		_, err := r.New("lines", []byte(`{"pth": "x"}`))
		assert.ErrorContains(t, err, `unknown field "pth"`)
		_, err = r.New("lines", nil)
		assert.ErrorContains(t, err, "observer source lines: path: required")
	})

	// A mail spool that appends a line per message sent: a correct
	// sender writes one line per intent, a sender that retries blindly
	// writes the same message twice.
	dir := t.TempDir()
	src, err := r.New("lines", []byte(`{"path": "{{state_dir}}/spool.log"}`))
	require.NoError(t, err)
	spec := observe.Spec{Name: "spool", Settle: failingFile, Source: src}
	start := spec.Starter()
	o, err := start(context.Background(), &harness.Env{StateDir: dir}, nil)
	require.NoError(t, err)
	defer o.Close()

	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	assert.Empty(t, ledger.Effects(), "no log yet: nothing, and no error")

	log := filepath.Join(dir, "spool.log")
	write(t, log, "to ann: receipt "+m1+"\nto bob: receipt "+m2+"\nto bob: receipt "+m2+"\n")
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	require.NoError(t, o.Observe(context.Background(), ledger, m2))
	assert.Len(t, ledger.ByMarker(m1), 1, "sent once")
	assert.Len(t, ledger.ByMarker(m2), 2, "sent twice: the duplicate is seen")
	e := ledger.ByMarker(m2)[1]
	assert.Equal(t, fakes.Effect{Seq: e.Seq, Fake: "spool", Kind: "line", ID: "3", Markers: []string{m2}, At: e.At,
		Detail: map[string]string{"source": "lines", "object": "spool"}, Observed: true}, e)

	// Counted by delta through the same source.
	counted := open(t, observe.Spec{Name: "spool-count", Settle: quick, Source: observe.Count{From: Lines{Path: log}}}, dir)
	require.NoError(t, counted.Begin(context.Background(), "idem-00000000000000a3"))
	write(t, log, "to ann: receipt "+m1+"\nto bob: receipt "+m2+"\nto bob: receipt "+m2+"\nto cyd: (no marker)\n")
	assert.Equal(t, []string{"idem-00000000000000a3+1"}, ids(t, counted, "idem-00000000000000a3"))

	// A line beyond the bound: an error that names the file.
	write(t, log, strings.Repeat("x", maxLine+1)+"\n")
	err = o.Observe(context.Background(), fakes.NewLedger(), m1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "observer spool (lines): "+log+" line 1: bufio.Scanner: token too long")
}
