package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/reports"
)

// cmdReport re-reads raw results (result.json, written by run and demo
// with --out), merges the shards of a run, re-scores and re-renders them,
// and exits as run would have.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o output
	o.register(fs)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if len(paths) == 0 {
		return usageErr("report: give at least one RESULT.json (the result.json that run or demo --out writes)")
	}
	formats, err := o.formats()
	if err != nil {
		return err
	}
	results := make([]*harness.Result, len(paths))
	for i, p := range paths {
		if results[i], err = readResult(p); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("report: %s: %w", p, err), hint: "pass the result.json files written by idemcheck run --out (or demo --out)"}
		}
	}
	if err := sameRun(paths, results); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("report: %w", err)}
	}
	merged, err := harness.Merge(results...)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("report: %s: %w", strings.Join(paths, ", "), err)}
	}
	if err := o.emit(merged, formats, stdout, reports.Options{}); err != nil {
		return err
	}
	if err := verdict(ctx, merged, o.minScore); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "idemcheck: every target met --min-score %d (seed %d)\n", o.minScore, merged.Seed)
	}
	return nil
}

// parseInterspersed parses flags that may come after the file names too
// (report RESULT.json --min-score 2); a "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// readResult reads and checks one raw result, saying what is wrong with it.
func readResult(path string) (*harness.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not JSON: %s", jsonErr(b, err))
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("not an idemcheck result: no \"schema\" field (expected %q)", harness.ResultSchema)
	case *head.Schema == reports.ReportSchema:
		return nil, fmt.Errorf("a JSON report (%s), which has no history to re-score: pass the result.json next to it", reports.ReportSchema)
	case *head.Schema != harness.ResultSchema:
		return nil, fmt.Errorf("schema %q, expected %q", *head.Schema, harness.ResultSchema)
	}
	var res harness.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("not a valid %s: %s", harness.ResultSchema, jsonErr(b, err))
	}
	return &res, nil
}

// jsonErr says where in b a decoding error is.
func jsonErr(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 1 || off > int64(len(b)) {
		return err.Error()
	}
	off-- // the offset is just past the byte in error
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// sameRun checks that the results are one run: the same seed and
// configuration, and, when they are shards, every shard exactly once.
func sameRun(paths []string, rs []*harness.Result) error {
	for i := 1; i < len(rs); i++ {
		if rs[i].Seed != rs[0].Seed {
			return fmt.Errorf("%s (seed %d) and %s (seed %d) are not from one run: the shards of a run share its seed", paths[0], rs[0].Seed, paths[i], rs[i].Seed)
		}
		if a, b := rs[0].Meta.ConfigDigest, rs[i].Meta.ConfigDigest; a != "" && b != "" && a != b {
			return fmt.Errorf("%s and %s were made with different configurations (sha256 %.12s… and %.12s…)", paths[0], paths[i], a, b)
		}
	}
	if len(rs) == 1 && rs[0].Meta.Shard == "" {
		return nil
	}
	n := 0
	seen := map[int]string{}
	for i, r := range rs {
		if r.Meta.Shard == "" {
			return fmt.Errorf("%s is a whole run, not a shard: merge only the shards of one run", paths[i])
		}
		si, sn, err := parseShard(r.Meta.Shard)
		if err != nil {
			return fmt.Errorf("%s: meta.shard %q is not i/n", paths[i], r.Meta.Shard)
		}
		if n == 0 {
			n = sn
		}
		if sn != n {
			return fmt.Errorf("%s is shard %s but %s is shard %s: the shards of a run share n", paths[0], rs[0].Meta.Shard, paths[i], r.Meta.Shard)
		}
		if prev, dup := seen[si]; dup {
			return fmt.Errorf("%s and %s are both shard %d/%d", prev, paths[i], si, n)
		}
		seen[si] = paths[i]
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("shard(s) %s missing: the merged report would judge part of the run", strings.Join(missing, ", "))
	}
	return nil
}
