package main

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/openapi"
	"github.com/idemcheck/idemcheck/reports"
)

// starterURL checks the base URL given to init's flag (what names the
// server: "the API's") and returns it parsed, with the target's name:
// name, else the command's base name, else fallback. {{port}} in it is
// the port idemcheck picks for a server it starts, so it needs a command
// (such as example).
func starterURL(flag, what, example, base, name, fallback string, command []string) (*url.URL, string, error) {
	u, err := url.Parse(strings.ReplaceAll(base, "{{port}}", "1")) // the port idemcheck picks
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(base, "\n\r") {
		return nil, "", usageErr("init: %s %q: expected %s base URL, such as http://127.0.0.1:8080 (or http://127.0.0.1:{{port}} with a command that starts it)", flag, base, what)
	}
	if strings.Contains(base, "{{port}}") && len(command) == 0 {
		return nil, "", usageErr("init: %s %q: {{port}} is the port idemcheck picks for a server it starts: give the command after --, e.g. idemcheck init %s %s -- %s --port {{port}}", flag, base, flag, base, example)
	}
	if !strings.Contains(base, "{{port}}") && slices.ContainsFunc(command, func(arg string) bool { return strings.Contains(arg, "{{port}}") }) {
		return nil, "", usageErr("init: %s %q: the command is given {{port}}, a free port idemcheck picks at every start, where the server will listen, but the URL names another: write {{port}} in the URL in place of the port, e.g. idemcheck init %s %s -- %s", flag, base, flag,
			reports.ShellQuote(u.Scheme+"://"+net.JoinHostPort(u.Hostname(), "{{port}}")+u.EscapedPath()), shellWords(command))
	}
	if name == "" {
		name = fallback
		if len(command) > 0 {
			name = config.CommandName(command)
		}
	}
	return u, name, nil
}

// initHTTP writes a starter configuration for an HTTP API that has no
// OpenAPI description, served at base (and started by command, if given):
// what only the user knows (the endpoint, the body and where the marker
// goes, the list to count effects by) is left as TODOs that `idemcheck
// run` reports with their line.
func initHTTP(name, base, out string, command []string, stdout, stderr io.Writer) error {
	u, name, err := starterURL("--http", "the API's", "./server", base, name, "api", command)
	if err != nil {
		return err
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# idemcheck configuration for the HTTP API at %s, written by `idemcheck init --http`.", base)
	p("# Fill in every TODO (idemcheck run refuses the file, with the line, until they are), then:")
	p("#   idemcheck run -c THIS_FILE")
	p("version: 1")
	p("")
	p("%s", openapi.FakesNote)
	p("")
	p("targets:")
	p("  - name: %s", strconv.Quote(name))
	p("    kind: http")
	p("    url: %s", strconv.Quote(base))
	if u.Scheme == "https" {
		p("    # https: the certificate must verify against the system's roots; to trust a private one,")
		p("    # name it for the run: SSL_CERT_FILE=its-ca.pem idemcheck run -c THIS_FILE")
	}
	if !section.IsLoopback(u.Hostname()) {
		p("    allow_remote: true   # the server is not on this machine: idemcheck sends real requests to it")
	}
	if len(command) > 0 {
		p("    start:   # idemcheck starts (and crashes) the server itself, once per instance it needs")
		p("      command: %s", quotedFlow(command))
		p("      ready: {path: /healthz}   # a path that answers 200 once the server can serve: yours, if it differs")
		p(`      # env: {DATABASE_PATH: "{{state_dir}}/app.db"}   # keep its data in the state directory idemcheck gives it`)
		p(`      #   or, with dependencies: below, env: {DATABASE_URL: "{{deps.db.url}}"}`)
		p("    # dependencies: {db: {protocol: postgres}}   # a PostgreSQL (or redis) idemcheck starts for the server and")
		p("    #   faults inside its connection (docs/guides/dependencies.md); observe it with dsn: \"{{deps.db.direct_url}}\"")
	} else {
		p("    # no start: the server must be running at the url before the run;")
		p("    # start: {command: [./server, --port, \"{{port}}\"], ready: {path: /healthz}}   # to have idemcheck start (and crash) it, with url: http://127.0.0.1:{{port}} (or https://)")
	}
	p("    key_header: Idempotency-Key   # the header the API reads its idempotency key from")
	p("    # dry_run: {query: dry_run}   # a query parameter (or header) that asks for a dry run, if the API has one;")
	p("    #   without one the score stops at 2: level 3 needs a dry run of every mutating call")
	p("    # effect: {json: effect}      # where a reply says what it did: created, noop (default)")
	p("    # identity: {json: data.id}   # where it names what it made, to compare replays (default)")
	p("    timeout: 10s")
	p("    # observe: where idemcheck counts the side effects, by marker: a read-back of")
	p("    # the API's own list (http) or a query on its database (sql). Without fakes")
	p("    # the API calls, this is the only count idemcheck has.")
	p("    observe:")
	p("      - name: api")
	p("        http: {path: null, items: data}   # TODO: path: a list that finds what each call made by its marker, e.g. \"/orders?search={{marker}}\"; items: where its reply lists them")
	p("        # sql: {dsn: \"postgres://user@host/db\", query: \"SELECT id FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'\"}")
	p("        #   a SQLite file: dsn: \"sqlite:/path/to/app.db\", or \"sqlite:{{state_dir}}/app.db\" for one a start: command keeps there")
	p("    operations:")
	p("      - name: create   # one entry per call to test; the name is yours")
	p("        mutating: true   # it changes something: retried, it must not change it twice")
	p("        method: POST")
	p("        path: null   # TODO: the endpoint under the url, e.g. /orders")
	p("        headers: {Content-Type: application/json}")
	p("        body: null   # TODO: the request body, with {{marker}} in a field the API keeps and lists, e.g. '{\"amount\":{{input.amount}},\"note\":\"{{marker}}\"}'")
	p("        # inputs: {amount: {int: [100, 9999]}}   # values for {{input.NAME}}, new for each call; without one, no payload")
	p("        # differs under a reused key, key.mismatch is not examined, and the score stops at 2")
	if err := writeStarter(out, b.String(), stdout); err != nil || out == "" {
		return err
	}
	fmt.Fprintf(stderr, "idemcheck init: wrote %s; fill in every TODO, then run: idemcheck run -c %s\n", out, reports.ShellQuote(out))
	return nil
}

// shellWords is a command as a shell line, each word quoted as it needs.
func shellWords(command []string) string {
	words := make([]string, len(command))
	for i, w := range command {
		words[i] = reports.ShellQuote(w)
	}
	return strings.Join(words, " ")
}
