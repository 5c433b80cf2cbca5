package main

import (
	"context"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/fakes/webhooks"
)

// controlAddr is where idemcheck fakes serves each fake's control API: a
// free loopback port apart from the address a service is given, so that
// the service cannot disarm the faults a person arms.
const controlAddr = "127.0.0.1:0"

// controlNote says where the control API is.
const controlNote = "each fake's ledger and fault rules are at its control URL only (GET /_idemcheck/ledger, POST and DELETE /_idemcheck/rules), never at the address a service is given"

// cmdFakes runs every fake on loopback, sharing one ledger, until
// interrupted: to point a tool at them by hand.
func cmdFakes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fakes")
	payAddr := fs.String("payments", "127.0.0.1:0", "listen address of the payments fake (loopback)")
	mailAddr := fs.String("email", "127.0.0.1:0", "listen address of the email fake's HTTP API (loopback)")
	smtpAddr := fs.String("smtp", "127.0.0.1:0", "listen address of the email fake's SMTP server (loopback)")
	hookAddr := fs.String("webhooks", "127.0.0.1:0", "listen address of the webhook sink (loopback)")
	var cfgPath string
	fs.StringVar(&cfgPath, "config", "", "run exactly the fakes configuration `FILE` declares, at their listen addresses")
	fs.StringVar(&cfgPath, "c", "", "same as --config")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("fakes: unexpected argument %q", fs.Arg(0))
	}
	if cfgPath != "" {
		return fakesFromConfig(ctx, cfgPath, stdout)
	}
	ledger := fakes.NewLedger()
	p, err := payments.New(payments.Options{Addr: *payAddr, Ledger: ledger, ControlAddr: controlAddr})
	if err != nil {
		return usageErr("fakes: %v", err)
	}
	defer p.Close()
	m, err := email.New(email.Options{Addr: *mailAddr, SMTPAddr: *smtpAddr, Ledger: ledger, ControlAddr: controlAddr})
	if err != nil {
		return usageErr("fakes: %v", err)
	}
	defer m.Close()
	w, err := webhooks.New(webhooks.Options{Addr: *hookAddr, Ledger: ledger, ControlAddr: controlAddr})
	if err != nil {
		return usageErr("fakes: %v", err)
	}
	defer w.Close()
	fmt.Fprintf(stdout, "payments  %s  (POST /v1/charges, GET /v1/charges)  control %s\n", p.URL(), p.ControlURL())
	fmt.Fprintf(stdout, "email     %s  (POST /v3/mail/send, GET /v3/messages)  smtp %s  control %s\n", m.URL(), m.SMTPAddr(), m.ControlURL())
	fmt.Fprintf(stdout, "webhooks  %s  (POST /hooks/…)  control %s\n", w.URL(), w.ControlURL())
	fmt.Fprintln(stdout, controlNote)
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	return nil
}
