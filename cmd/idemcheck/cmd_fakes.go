package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/fakes/payments"
)

func cmdFakes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("payments", "127.0.0.1:0", "listen address of the payments fake (loopback)")
	if err := fs.Parse(args); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	p, err := payments.New(payments.Options{Addr: *addr})
	if err != nil {
		return usageErr("fakes: %v", err)
	}
	defer p.Close()
	fmt.Fprintf(stdout, "payments  %s  (POST /v1/charges, GET /v1/charges, ledger: GET /_idemcheck/ledger)\n", p.URL())
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	return nil
}
