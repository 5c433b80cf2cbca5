package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/reports"
)

// initWebhook writes a starter configuration for a webhook handler served
// at base (and started by command, if given): what only the user knows
// (the path deliveries go to, the event's body and where its id and the
// marker go, the signing secret) is left as TODOs that `idemcheck run`
// reports with their line.
func initWebhook(name, base, out string, command []string, stdout, stderr io.Writer) error {
	u, name, err := starterURL("--webhook", "the handler's", "./handler", base, name, "webhooks", command)
	if err != nil {
		return err
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# idemcheck configuration for the webhook handler at %s, written by `idemcheck init --webhook`.", base)
	p("# Fill in every TODO (idemcheck run refuses the file, with the line, until they are), then:")
	p("#   idemcheck run -c THIS_FILE")
	p("# idemcheck is the sender: it signs each event and delivers it, then again")
	p("# (after a timeout, a lost reply or a crash, many at once, newest first), and")
	p("# forges some: each genuine event must have one effect, a forged one none.")
	p("version: 1")
	p("fakes:")
	p("  payments: {}   # the fakes your handler calls downstream: payments, email, webhooks")
	p("targets:")
	p("  - name: %s", strconv.Quote(name))
	p("    kind: webhook")
	p("    url: %s", strconv.Quote(base))
	if !section.IsLoopback(u.Hostname()) {
		p("    allow_remote: true   # the handler is not on this machine: idemcheck sends real deliveries to it")
	}
	if len(command) > 0 {
		p("    start:   # idemcheck starts (and crashes) the handler itself")
		p("      command: %s", quotedFlow(command))
		p("      ready: {path: /healthz}   # a path that answers 200 once the handler can serve: yours, if it differs")
		p(`      env: {PAYMENTS_URL: "{{fakes.payments.url}}"}   # point it at the fakes, and keep its data in "{{state_dir}}"`)
	} else {
		p("    # no start: the handler must be running at the url before the run, calling the fakes idemcheck")
		p("    # starts (their addresses are printed); with start: {command: [...]}, idemcheck starts and crashes it")
	}
	p("    signature:")
	p("      secret: null   # TODO: the signing secret your handler checks (taken as written, never printed);")
	p("      #   a handler that checks no signature: replace this section with signature: {scheme: none}")
	p("      # scheme: stripe                # default (t=…,v1=HMAC-SHA256); hex, base64 (with prefix: \"sha256=\")")
	p("      # header: Idemcheck-Signature   # default: the header your handler reads the signature from")
	p("    # id_header: webhook-id           # also send the event id in a header")
	p("    events:")
	p("      - name: TODO   # the event's type, as the handler knows it")
	p("        path: null   # TODO: where the handler receives deliveries, e.g. /webhooks/payments")
	p("        # the event id is {{key}}: the handler de-duplicates by it, and passes it (or a key")
	p("        # made from it) downstream; {{marker}} goes where it passes text on (a description)")
	p(`        body: null   # TODO: the event, e.g. '{"id":"{{key}}","type":"invoice.due","created":{{created}},"data":{"amount":{{input.amount}},"description":"invoice {{marker}}"}}'`)
	p("        # inputs: {amount: {int: [100, 99999]}}   # values for {{input.NAME}}, new for each event")
	if err := writeStarter(out, b.String(), stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(stderr, "idemcheck init: wrote %s; fill in every TODO, then run: idemcheck run -c %s\n", out, reports.ShellQuote(out))
	return nil
}
