package openapi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// FakesNote is what a starter configuration of an HTTP API says of the
// fakes, above its targets.
const FakesNote = `# fakes: the services this API calls, if any, can be played by idemcheck's
# fakes, which count the side effects they see: payments: {}, email: {},
# webhooks: {}; give the API their addresses ({{fakes.payments.url}}).`

func render(doc *openapi3.T, ops []*op, opts Options) Config {
	var b strings.Builder
	var todos []string
	line := 0
	p := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		line += strings.Count(s, "\n") + 1
		b.WriteString(s + "\n")
	}
	todo := func(what string) { todos = append(todos, fmt.Sprintf("line %d: %s", line+1, what)) }
	title, name := "the API", opts.Name
	if doc.Info != nil && doc.Info.Title != "" {
		title = doc.Info.Title
		if name == "" {
			name = targetName(title)
		}
		if doc.Info.Version != "" {
			title += " " + doc.Info.Version
		}
	}
	if name == "" {
		name = "api"
	}
	src := opts.Source
	if src == "" {
		src = "its OpenAPI description"
	}
	p("# idemcheck configuration for %s, written by `idemcheck init --openapi %s`.", oneLine(title), oneLine(src))
	p("# Fill in every TODO (idemcheck run reports each one left with its line), then:")
	p("#   idemcheck run -c THIS_FILE")
	p("version: 1")
	p("")
	p("%s", FakesNote)
	p("")
	p("targets:")
	p("  - name: %s", name)
	p("    kind: http")
	base, why := serverURL(doc)
	if why != "" {
		todo("url: " + why)
		p("    url: %s   # TODO: %s", strconv.Quote(base), oneLine(why))
	} else {
		p("    url: %s   # the spec's first server", strconv.Quote(base))
	}
	if u, err := url.Parse(base); err == nil && why == "" && !loopback(u.Hostname()) {
		p("    allow_remote: true   # the server is not on this machine: idemcheck sends real requests to it")
	}
	p("    # start: {command: [...], ready: {path: /healthz}}   # to have idemcheck start (and crash) the server itself")
	keyHeader, keyFrom := "", ""
	dryRun := ""
	for _, o := range ops {
		if o.keyHeader != "" && keyHeader == "" {
			keyHeader, keyFrom = o.keyHeader, o.name
		}
		if o.dryRun != "" && dryRun == "" {
			dryRun = o.dryRun
		}
	}
	if keyHeader != "" {
		p("    key_header: %s   # declared by %s", keyHeader, oneLine(keyFrom))
	} else {
		todo("key_header: the spec declares no idempotency key header")
		p("    key_header: Idempotency-Key   # TODO: the spec declares no idempotency key header; write the API's, or keep this to see what it does without one")
	}
	if dryRun != "" {
		p("    dry_run: {query: %s}   # found as a query parameter", dryRun)
	} else {
		p("    # dry_run: {query: dry_run}   # the spec declares no dry-run parameter")
	}
	p("    # effect: {json: effect}      # where a reply says what it did: created, noop (default)")
	identity, identityFrom := "", ""
	for _, o := range ops {
		if o.identity != "" {
			identity, identityFrom = o.identity, o.name
			break
		}
	}
	if identity != "" && identity != "data.id" {
		p("    identity: {json: %s}   # where %s's reply names what it made, to compare replays", identity, oneLine(identityFrom))
	} else {
		p("    # identity: {json: data.id}   # where it names what it made, to compare replays (default)")
	}
	p("    timeout: 10s")
	renderObserve(p, todo, ops)
	p("    operations:")
	for _, o := range ops {
		if o.summary != "" {
			p("      # %s %s: %s", o.method, oneLine(o.rawPath), oneLine(o.summary))
		}
		p("      - name: %s", o.name)
		p("        mutating: %t", o.mutating)
		p("        method: %s", o.method)
		p("        path: %s", strconv.Quote(o.path))
		if len(o.headers) > 0 {
			hs := make([]string, len(o.headers))
			for i, h := range o.headers {
				hs[i] = h[0] + ": " + strconv.Quote(h[1])
			}
			p("        headers: {%s}", strings.Join(hs, ", "))
		}
		if o.body != "" {
			p("        body: %s", singleQuoted(o.body))
		}
		if len(o.pathParams) > 0 && o.method != "PUT" { // a PUT may create what its path names
			todo(fmt.Sprintf("operation %s: %s in its path must name something that exists; a generated value finds nothing (404)", o.name, strings.Join(o.pathParams, ", ")))
			p("        # TODO: %s must name something that exists (one you made), such as path: %s; a generated value finds nothing (404)", strings.Join(o.pathParams, ", "), strconv.Quote(exampleExisting(o.rawPath)))
		}
		if o.noMarker != "" {
			todo(fmt.Sprintf("operation %s: put {{marker}} in a value the API keeps (%s)", o.name, o.noMarker))
			p("        # TODO: put {{marker}} in a value the API keeps and returns (%s), so that each effect can be traced to its intent", o.noMarker)
		}
		if len(o.inputs) > 0 {
			p("        inputs:")
			for _, in := range o.inputs {
				p("          %s: %s", in.name, in.yaml)
			}
		}
	}
	return Config{YAML: b.String(), Operations: len(ops), TODOs: todos}
}

// renderObserve proposes a read-back observer: a GET on the collection a
// POST creates in, which searches by a query parameter and lists objects.
func renderObserve(p func(string, ...any), todo func(string), ops []*op) {
	var list *op
	for _, o := range ops {
		if o.method != "GET" || o.search == "" || o.listItems == nil {
			continue
		}
		for _, c := range ops {
			if c.method == "POST" && c.rawPath == o.rawPath && c.marker {
				list = o
			}
		}
		if list != nil {
			break
		}
	}
	p("    # observe: where idemcheck counts this API's side effects, by marker: a read-back")
	p("    # of its own list endpoint (http) or a query on its database (sql).")
	if list == nil {
		todo("observe: no list endpoint that searches was found")
		p("    # TODO: no list endpoint that searches was found; declare how to count what each intent made:")
		p("    observe:")
		p("      - name: api")
		p("        http: {path: \"/TODO?search={{marker}}\", items: data}   # TODO: the list endpoint and where its reply lists objects")
		p("      # - name: db")
		p("      #   sql: {dsn: \"postgres://user@host/db\", query: \"SELECT id FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'\"}")
		p("      #   a SQLite file: dsn: \"sqlite:/path/to/app.db\", or \"sqlite:{{state_dir}}/app.db\" for one a start: command keeps there")
		return
	}
	path := list.rawPath + "?" + url.QueryEscape(list.search) + "={{marker}}"
	p("    observe:")
	p("      - name: %s", list.name)
	p("        http: {path: %s, items: %s}   # lists the objects whose %s matches", strconv.Quote(path), strconv.Quote(*list.listItems), oneLine(list.search))
	p("        # sql: {dsn: \"postgres://user@host/db\", query: \"SELECT id FROM … WHERE … LIKE '%%' || {{marker}} || '%%'\"}   # or count rows in its database")
	p("        #   a SQLite file: dsn: \"sqlite:/path/to/app.db\", or \"sqlite:{{state_dir}}/app.db\" for one a start: command keeps there")
}

var varRE = lazyregexp.New(`\{([^}]+)\}`)

// exampleExisting is path with each parameter replaced by a value one
// would write for an object that exists.
func exampleExisting(path string) string {
	return varRE.ReplaceAllStringFunc(path, func(m string) string { return m[1:len(m)-1] + "_1" })
}

// serverURL is the spec's first server with its variables at their
// defaults, or a placeholder and why it is one.
func serverURL(doc *openapi3.T) (string, string) {
	if len(doc.Servers) == 0 || doc.Servers[0] == nil {
		return "http://127.0.0.1:8080", "the spec names no server; write where the API listens"
	}
	s := doc.Servers[0]
	u := varRE.ReplaceAllStringFunc(s.URL, func(m string) string {
		if v := s.Variables[m[1:len(m)-1]]; v != nil {
			return v.Default
		}
		return m
	})
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "http://127.0.0.1:8080" + u, fmt.Sprintf("the spec's server %q is relative; write where the API listens", s.URL)
	}
	return strings.TrimSuffix(u, "/"), ""
}

func loopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}

var nameRE = lazyregexp.New(`[^a-z0-9._-]+`)

func targetName(title string) string {
	n := strings.Trim(nameRE.ReplaceAllString(strings.ToLower(title), "-"), "-._")
	if n == "" {
		return "api"
	}
	return n
}

// oneLine is s as the text of a YAML comment: on one line, without the
// characters YAML does not allow in a document (control characters, DEL,
// the C1 controls, U+FFFE and U+FFFF, invalid UTF-8), its first 100
// bytes at most, cut between characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.Map(yamlPrintable, strings.ToValidUTF8(s, ""))), " ")
	if len(s) > 100 {
		cut := 100
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// yamlPrintable is r where a YAML document may hold it, a space for a
// white space character, and nothing (-1) otherwise.
func yamlPrintable(r rune) rune {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return ' '
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f && r != 0x85) || r == 0xfffe || r == 0xffff:
		return -1
	}
	return r
}

// singleQuoted writes s as a YAML single-quoted scalar.
func singleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
