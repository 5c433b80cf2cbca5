package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

// cmdReport re-reads raw results (result.json, written by run and demo
// with --out), merges the shards of a run, re-scores and re-renders them,
// applies the gate (--min-score, --baseline: run's defaults) and exits as
// run would have.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	var o output
	var baseline string
	o.register(fs)
	setMinScoreDefault(fs, &o, harness.DefaultMinScore)
	fs.StringVar(&baseline, "baseline", "", baselineUsage)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(paths) == 0 {
		return usageErr("report: give at least one RESULT.json (the result.json that run or demo --out writes)")
	}
	formats, err := o.formats()
	if err != nil {
		return err
	}
	o.redactWith(envSecrets())
	unlock, err := o.lockOut()
	if err != nil {
		return err
	}
	defer unlock()
	results := make([]*record.Result, len(paths))
	for i, p := range paths {
		if results[i], err = readResultFile(ctx, p); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &exitError{code: exitUsage, err: fmt.Errorf("report: %s: %w", p, err), hint: "pass the result.json files written by idemcheck run --out (or demo --out)"}
		}
	}
	merged, err := harness.Merge(results...)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	base, err := loadBaseline(baseline, merged.Meta)
	if err != nil {
		return err
	}
	if err := applyGate(merged, o.minScore, base); err != nil {
		return err
	}
	if err := o.emit(merged, formats, stdout, reports.Options{}); err != nil {
		return err
	}
	// No progress line said why a target was not tested: stderr says it.
	err = gateVerdict(ctx, merged, true)
	if err == nil && !o.quiet || codeOf(err) == exitBelow {
		gateNote(stderr, merged)
	}
	return err
}

// maxResultBytes bounds a result file idemcheck report reads: far above
// what a run writes (its evidence is capped per attempt), far below what
// would exhaust memory once decoded.
const maxResultBytes = 128 << 20

// readResultFile reads a raw result as idemcheck report must, whatever
// the path names: only a regular file (a FIFO or a device is refused
// before it can block), at most maxResultBytes, and, when its directory
// holds a manifest (reports.ManifestFile), only the file the manifest
// lists: one from a set cut short is refused.
func readResultFile(ctx context.Context, path string) (*record.Result, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("not a regular file (%s): idemcheck report reads the result.json a run wrote", fileKind(fi.Mode()))
	case fi.Size() > maxResultBytes:
		return nil, fmt.Errorf("%d MiB, more than the %d MiB a result may be", fi.Size()>>20, maxResultBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(readerCtx{ctx, f}, maxResultBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxResultBytes {
		return nil, fmt.Errorf("grew past the %d MiB a result may be while being read", maxResultBytes>>20)
	}
	m, err := reports.ReadManifest(filepath.Dir(path))
	switch {
	case errors.Is(err, reports.ErrNoManifest):
	case err != nil:
		return nil, err
	default:
		if err := m.Check(filepath.Base(path), b); err != nil {
			return nil, err
		}
	}
	res, err := record.ReadResult(b)
	if err != nil {
		return nil, err
	}
	res.Source = path
	return res, nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// readerCtx stops a read at ctx's end.
type readerCtx struct {
	ctx context.Context
	r   io.Reader
}

func (r readerCtx) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
