package jsonstore

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // refused: a reused key with another payload
	exitUsage    = 2
	exitTempFail = 75 // the store could not be read or written now
)

// reply is the tool's JSON reply on stdout.
type reply struct {
	OK     bool    `json:"ok"`
	Effect string  `json:"effect,omitempty"`
	Data   *Record `json:"data,omitempty"`
	Error  string  `json:"error,omitempty"`
	Reason string  `json:"reason,omitempty"`
}

// Main runs the tool with its arguments and returns its exit code: 0 for
// a put made or replayed (and a get that found the record), 1 for a
// refusal, 2 for bad usage, 75 when the store cannot be used now.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jsonstore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "how the file is written: "+strings.Join(Profiles, ", "))
	file := fs.String("file", "", "the store: a JSON file")
	window := fs.Duration("window", 0, "the other work a put does between loading the store and saving it")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if _, err := Describe(*profile); err != nil || *file == "" || *window < 0 || *window > time.Minute {
		fmt.Fprintf(stderr, "jsonstore: need --profile (%s), --file PATH and a --window in [0, 1m]: %v\n", strings.Join(Profiles, ", "), err)
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "jsonstore: expected a command: put or get")
		return exitUsage
	}
	cmd := flag.NewFlagSet(rest[0], flag.ContinueOnError)
	cmd.SetOutput(stderr)
	note := cmd.String("note", "", "the record's note")
	amount := cmd.Int64("amount", 0, "the record's amount, above zero")
	key := cmd.String("idempotency-key", "", "the idempotency key (required)")
	dry := cmd.Bool("dry-run", false, "say what would be stored, store nothing")
	if err := cmd.Parse(rest[1:]); err != nil {
		return exitUsage
	}
	s := &store{path: *file, locked: *profile == "locked", window: *window}
	out := json.NewEncoder(stdout)
	switch rest[0] {
	case "put":
		if *amount <= 0 || *note == "" {
			_ = out.Encode(reply{Error: "bad_input", Reason: "--note and a positive --amount are required"})
			return exitUsage
		}
		r := Record{Key: *key, Note: *note, Amount: *amount}
		if *dry {
			_ = out.Encode(reply{OK: true, Effect: "would_create", Data: &r})
			return exitOK
		}
		if *key == "" {
			_ = out.Encode(reply{Error: "key_required", Reason: "--idempotency-key is required"})
			return exitUsage
		}
		got, created, err := s.put(ctx, r)
		switch {
		case errors.Is(err, errMismatch):
			_ = out.Encode(reply{Error: "key_mismatch", Reason: err.Error()})
			return exitFailed
		case err != nil:
			_ = out.Encode(reply{Error: "store_unavailable", Reason: err.Error()})
			return exitTempFail
		case created:
			_ = out.Encode(reply{OK: true, Effect: "created", Data: &got})
		default:
			_ = out.Encode(reply{OK: true, Effect: "noop", Data: &got})
		}
		return exitOK
	case "get":
		got, err := s.get(*key)
		if err != nil {
			_ = out.Encode(reply{Error: "not_found", Reason: err.Error()})
			return exitFailed
		}
		_ = out.Encode(reply{OK: true, Effect: "noop", Data: &got})
		return exitOK
	}
	fmt.Fprintf(stderr, "jsonstore: unknown command %q: expected put or get\n", rest[0])
	return exitUsage
}
