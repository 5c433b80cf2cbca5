package clidb

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Exit codes.
const (
	exitOK       = 0
	exitRefused  = 1 // a reused key with another payload
	exitUsage    = 2
	exitTempFail = 75 // the database cannot be used now: retry
	exitFailed   = 1  // error-after-insert: the failure it answers after logging
)

type reply struct {
	OK     bool   `json:"ok"`
	Effect string `json:"effect,omitempty"`
	Data   any    `json:"data,omitempty"`
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Main runs the tool with its arguments and returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clidb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "how an expense and its key are written: "+strings.Join(Profiles, ", "))
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "the database: postgres://… or sqlite:PATH ($DATABASE_URL)")
	window := fs.Duration("window", 0, "check-then-insert: the other work between the check and the insert")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	_, err := Describe(*profile)
	if err == nil {
		_, _, err = refdb.Driver(*dsn)
	}
	if err != nil || *window < 0 || *window > time.Minute || fs.NArg() == 0 {
		fmt.Fprintf(stderr, "clidb: need --profile (%s), --db postgres://…|sqlite:PATH, a --window in [0, 1m] and a command (add-expense, list-expenses): %v\n",
			strings.Join(Profiles, ", "), err)
		return exitUsage
	}
	rest := fs.Args()
	cmd := flag.NewFlagSet(rest[0], flag.ContinueOnError)
	cmd.SetOutput(stderr)
	amount := cmd.Int64("amount", 0, "the expense in cents, above zero")
	memo := cmd.String("memo", "", "what it was for")
	key := cmd.String("idempotency-key", "", "the idempotency key (required)")
	dry := cmd.Bool("dry-run", false, "say what would be logged, log nothing")
	search := cmd.String("search", "", "list-expenses: the text the memo holds")
	if err := cmd.Parse(rest[1:]); err != nil {
		return exitUsage
	}
	out := json.NewEncoder(stdout)
	if rest[0] != "add-expense" && rest[0] != "list-expenses" {
		fmt.Fprintf(stderr, "clidb: unknown command %q: expected add-expense or list-expenses\n", rest[0])
		return exitUsage
	}
	e := Expense{Amount: *amount, Memo: *memo}
	if rest[0] == "add-expense" {
		switch {
		case e.Amount <= 0:
			_ = out.Encode(reply{Error: "bad_input", Reason: "--amount must be above zero"})
			return exitUsage
		case *dry:
			_ = out.Encode(reply{OK: true, Effect: "would_create", Data: e})
			return exitOK
		case *key == "":
			_ = out.Encode(reply{Error: "key_required", Reason: "--idempotency-key is required"})
			return exitUsage
		}
	}
	db, err := refdb.Open(ctx, *dsn, 2, schema...)
	if err != nil {
		_ = out.Encode(reply{Error: "database_unavailable", Reason: err.Error()})
		return exitTempFail
	}
	defer db.Close()
	s := &store{db: db, window: *window}
	if rest[0] == "list-expenses" {
		list, err := s.search(ctx, *search)
		if err != nil {
			_ = out.Encode(reply{Error: "database_unavailable", Reason: err.Error()})
			return exitTempFail
		}
		_ = out.Encode(reply{OK: true, Effect: "noop", Data: list})
		return exitOK
	}
	add := s.insertKeyed
	if *profile == "check-then-insert" {
		add = s.checkThenInsert
	}
	got, created, err := add(ctx, e, *key)
	switch {
	case errors.Is(err, errMismatch):
		_ = out.Encode(reply{Error: "key_mismatch", Reason: err.Error()})
		return exitRefused
	case err != nil:
		_ = out.Encode(reply{Error: "database_unavailable", Reason: err.Error()})
		return exitTempFail
	case created && *profile == "error-after-insert":
		// The flaw: the expense and its key are stored, but the reply
		// says it failed. A retry with the same key finds it and
		// answers its success.
		_ = out.Encode(reply{Error: "posting_failed", Reason: "the expense could not be logged: please retry"})
		return exitFailed
	case created:
		_ = out.Encode(reply{OK: true, Effect: "created", Data: got})
	default:
		_ = out.Encode(reply{OK: true, Effect: "noop", Data: got})
	}
	return exitOK
}
