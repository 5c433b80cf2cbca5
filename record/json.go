package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ResultFile is the name of the raw result in a run's output directory.
const ResultFile = "result.json"

// WriteJSON writes r itself, history and ledger included, indented: the
// raw result that ReadResult reads back and harness.Merge re-scores.
// A target with no finding has "findings": [], not null.
func (r *Result) WriteJSON(w io.Writer) error {
	out := *r
	out.Targets = make([]TargetResult, len(r.Targets))
	for i, t := range r.Targets {
		if t.Findings == nil {
			t.Findings = []Finding{}
		}
		out.Targets[i] = t
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}

// ReadResultFile reads the raw result at path (see ReadResult); the
// result remembers path as its Source, which harness.Merge names in its
// errors.
func ReadResultFile(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	res, err := ReadResult(b)
	if err != nil {
		return nil, err
	}
	res.Source = path
	return res, nil
}

// ReadResult decodes and checks one raw result written by WriteJSON,
// saying what is wrong with one it cannot use: not JSON (with the line and
// column), no schema, another schema (a JSON report, which has no history
// to re-score), or the wrong shape.
func ReadResult(b []byte) (*Result, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("not JSON: %s", jsonErr(b, err))
	}
	switch {
	case head.Schema == nil:
		return nil, fmt.Errorf("not an idemcheck result: no \"schema\" field (expected %q)", ResultSchema)
	case strings.HasPrefix(*head.Schema, "idemcheck.report/"):
		return nil, fmt.Errorf("a JSON report (%s), which has no history to re-score: pass the result.json next to it", *head.Schema)
	case *head.Schema != ResultSchema:
		return nil, fmt.Errorf("schema %q, expected %q", *head.Schema, ResultSchema)
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("not a valid %s: %s", ResultSchema, jsonErr(b, err))
	}
	if err := res.Validate(); err != nil {
		return nil, fmt.Errorf("not a valid %s: %w", ResultSchema, err)
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
