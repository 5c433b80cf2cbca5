package mcpdb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/examples/internal/refdb"
)

// Main runs the server over stdio. It returns 0 when its input ends or it
// is stopped, 1 when it fails, 2 on bad usage.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpdb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "where the keys are kept: "+strings.Join(Profiles, ", "))
	dsn := fs.String("db", os.Getenv("DATABASE_URL"), "the database: postgres://… or sqlite:PATH ($DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := Describe(*profile); err != nil || *dsn == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpdb: need --profile (%s) and --db postgres://…|sqlite:PATH: %v\n", strings.Join(Profiles, ", "), err)
		return 2
	}
	db, err := refdb.Open(ctx, *dsn, 8, schema...)
	if err != nil {
		fmt.Fprintf(stderr, "mcpdb: %v\n", err)
		return 1
	}
	defer db.Close()
	srv, err := NewServer(*profile, db)
	if err != nil {
		fmt.Fprintf(stderr, "mcpdb: %v\n", err)
		return 1
	}
	t := &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "mcpdb: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
