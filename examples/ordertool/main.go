package ordertool

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// The exit codes (sysexits.h where it has one).
const (
	ExitOK = 0
	// ExitFailed: refused for good (a key reused with another payload,
	// a charge declined). Retrying the same call cannot succeed.
	ExitFailed = 1
	// ExitUsage: bad flags or arguments, or a required key missing.
	ExitUsage = 2
	// ExitTempFail is EX_TEMPFAIL: a temporary failure (a downstream
	// service unavailable or its outcome unknown, the key in flight in
	// another process, the store busy). Retry with the same key.
	ExitTempFail = 75
)

// Stores are the idempotency stores --store accepts.
var Stores = []string{"none", "jsonl", "sqlite", "correct"}

// DefaultTTL is how long the sqlite store remembers a key (a day, a
// common choice for such caches).
const DefaultTTL = 24 * time.Hour

// DefaultWait is how long the correct store waits for another process
// that holds the same key before answering "in flight" (exit 75).
const DefaultWait = 5 * time.Second

const usage = `ordertool: orders, payments and email, with an idempotency store
(idemcheck's reference CLI tool; a JSON reply {ok, effect, data} on stdout)

Usage:
  ordertool [global flags] COMMAND [flags]

Commands:
  create-order   charge a customer and record the order (mutating)
  send-email     send an email through the email API (mutating)
  get-order      show one order (safe)
  help           show this help

Global flags (also accepted after the command):
  --store none|jsonl|sqlite|correct   the idempotency store (default none)
  --state-dir DIR                     where the stores and orders live (default $STATE_DIR)
  --payments URL                      payments API (default $PAYMENTS_URL)
  --email URL                         email API (default $EMAIL_URL)
  --ttl DURATION                      sqlite: how long a key is remembered (default 24h)
  --wait DURATION                     correct: how long to wait for a key held by another process (default 5s)

Flags of the mutating commands:
  --idempotency-key KEY   the same key on every retry of one logical request
  --dry-run               say what would happen, change nothing (not with --store none)

Exit codes: 0 done (also a no-op replay); 1 refused; 2 bad usage or a
missing key; 75 temporary failure: retry with the same key.
`

// command is one subcommand.
type command struct {
	name     string
	mutating bool
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet, a *cmdArgs)
	// run executes it once the flags are parsed and checked.
	run func(ctx context.Context, env *runEnv, a *cmdArgs) response
}

// cmdArgs holds every flag a command may have.
type cmdArgs struct {
	customer, memo, to, subject, id string
	amount                          int64
	key                             string
	dryRun                          bool
}

// globals are the flags every command accepts.
type globals struct {
	store       string
	stateDir    string
	paymentsURL string
	emailURL    string
	ttl         time.Duration
	wait        time.Duration
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.store, "store", g.store, "idempotency store: "+strings.Join(Stores, ", "))
	fs.StringVar(&g.stateDir, "state-dir", g.stateDir, "state `directory` (default $STATE_DIR)")
	fs.StringVar(&g.paymentsURL, "payments", g.paymentsURL, "payments API base `URL` (default $PAYMENTS_URL)")
	fs.StringVar(&g.emailURL, "email", g.emailURL, "email API base `URL` (default $EMAIL_URL)")
	fs.DurationVar(&g.ttl, "ttl", g.ttl, "sqlite store: how long a key is remembered")
	fs.DurationVar(&g.wait, "wait", g.wait, "correct store: how long to wait for a key held by another process")
}

func commands() []command {
	return []command{
		{name: "create-order", mutating: true, flags: func(fs *flag.FlagSet, a *cmdArgs) {
			fs.StringVar(&a.customer, "customer", "", "customer `id`")
			fs.Int64Var(&a.amount, "amount", 0, "amount in cents")
			fs.StringVar(&a.memo, "memo", "", "a note, passed on to the payment's description")
		}, run: createOrder},
		{name: "send-email", mutating: true, flags: func(fs *flag.FlagSet, a *cmdArgs) {
			fs.StringVar(&a.to, "to", "", "recipient `address`")
			fs.StringVar(&a.subject, "subject", "", "subject line")
			fs.StringVar(&a.memo, "memo", "", "the message text")
		}, run: sendEmail},
		{name: "get-order", flags: func(fs *flag.FlagSet, a *cmdArgs) {
			fs.StringVar(&a.id, "id", "", "order `id`")
		}, run: getOrder},
	}
}

// Main is the whole program: it parses args, runs one command, prints its
// JSON reply on stdout (and a human message on stderr when it fails), and
// returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := globals{
		store:       "none",
		stateDir:    os.Getenv("STATE_DIR"),
		paymentsURL: os.Getenv("PAYMENTS_URL"),
		emailURL:    os.Getenv("EMAIL_URL"),
		ttl:         DefaultTTL,
		wait:        DefaultWait,
	}
	gfs := flag.NewFlagSet("ordertool", flag.ContinueOnError)
	gfs.SetOutput(io.Discard)
	g.register(gfs)
	if err := gfs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return ExitOK
		}
		return emit(stdout, stderr, usageError("%v", err))
	}
	rest := gfs.Args()
	if len(rest) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	name := rest[0]
	if name == "help" {
		fmt.Fprint(stdout, usage)
		return ExitOK
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == name {
			cmd = &c
			break
		}
	}
	if cmd == nil {
		return emit(stdout, stderr, usageError("unknown command %q (commands: create-order, send-email, get-order; see ordertool help)", name))
	}
	var a cmdArgs
	fs := flag.NewFlagSet("ordertool "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	cmd.flags(fs, &a)
	if cmd.mutating {
		fs.StringVar(&a.key, "idempotency-key", "", "idempotency `key`")
		fs.BoolVar(&a.dryRun, "dry-run", false, "say what would happen, change nothing")
	}
	if err := fs.Parse(rest[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: ordertool %s [flags]\n\nFlags:\n", name)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return ExitOK
		}
		return emit(stdout, stderr, usageError("%s: %v", name, err))
	}
	if fs.NArg() > 0 {
		return emit(stdout, stderr, usageError("%s: unexpected argument %q; every setting is a flag", name, fs.Arg(0)))
	}
	env, resp := newRunEnv(g)
	if resp != nil {
		return emit(stdout, stderr, *resp)
	}
	return emit(stdout, stderr, cmd.run(ctx, env, &a))
}
