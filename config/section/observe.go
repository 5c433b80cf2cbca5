package section

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
)

// Observer is one source that counts a target's side effects in the
// target's own data: exactly one of HTTP (a read-back of its own API),
// SQL (a query on its database), MCP (a read-only tool of an MCP server),
// File (a JSON or JSONL file, or a directory of them), Redis (keys, a
// stream or a hash) and Count (a number or the rows of a table, read
// before and after each intent, for a target whose effects carry no
// marker). What an observer counts enters the same ledger as the fakes'
// effects, so every check judges it alike, and the report names the
// source that saw it. Every kind of target takes the same block.
//
//	observe:
//	  - name: orders-api
//	    object: orders
//	    http: {path: "/v1/orders?search={{marker}}", items: data, pages: {link: true}}
//	  - name: orders-db
//	    object: orders
//	    sql: {dsn: "{{env.DATABASE_URL}}", query: "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"}
type Observer struct {
	// Name names the source in reports. Default: the source's type
	// ("http", "sql", "mcp", "file", "redis", "count"); names are unique
	// within a target.
	Name string `yaml:"name,omitempty"`
	// Kind is the kind of effect one row or object is, e.g. "order".
	// Default: "object" for http, "row" for sql and count, "item" for
	// mcp and file, "entry" for redis.
	Kind string `yaml:"kind,omitempty"`
	// Object names what the observer sees, in the target's terms
	// ("orders"): observers of the same object see the same effects, and
	// an effect two of them saw (by the same identity) is counted once,
	// with both as evidence. Default: the observer's name, so that
	// observers of different things add up.
	Object string `yaml:"object,omitempty"`
	// HTTP reads back through the target's own API.
	HTTP *ObserveHTTP `yaml:"http,omitempty"`
	// SQL queries the database the target writes to.
	SQL *ObserveSQL `yaml:"sql,omitempty"`
	// MCP calls a read-only tool of an MCP server.
	MCP *ObserveMCP `yaml:"mcp,omitempty"`
	// File reads a JSON document, a JSONL file or a directory of them.
	File *ObserveFile `yaml:"file,omitempty"`
	// Redis reads keys by pattern, a stream or a hash.
	Redis *ObserveRedis `yaml:"redis,omitempty"`
	// Count reads a number (or every row) before and after each intent.
	Count *ObserveCount `yaml:"count,omitempty"`
	// Settle says how long the source is polled after each attempt.
	Settle Settle `yaml:"settle,omitempty"`
}

// ObserveHTTP is a read-back request that lists what an intent made.
type ObserveHTTP struct {
	// Path is the request's path and query under the target's url, e.g.
	// "/v1/orders?search={{marker}}". With {{marker}} the API is trusted
	// to filter; without it, only the listed objects whose JSON holds the
	// marker count. Required.
	Path string `yaml:"path"`
	// Method is the request's method. Default GET.
	Method string `yaml:"method,omitempty"`
	// Headers are sent with it; values may use {{marker}} and
	// {{env.NAME}}.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Items is the dotted JSON path of the list in the reply, e.g. "data";
	// empty when the reply is the list.
	Items string `yaml:"items,omitempty"`
	// ID is the dotted JSON path of an object's identity. Default "id".
	ID string `yaml:"id,omitempty"`
	// Pages says how to follow a paginated list; absent reads one page.
	Pages *ObservePages `yaml:"pages,omitempty"`
}

// ObservePages is how a read-back follows a paginated list: one of link,
// next, page and offset. A read that stops at max pages says so in the
// report: its counts may be low.
type ObservePages struct {
	// Link follows the RFC 8288 Link header's rel="next" URL.
	Link bool `yaml:"link,omitempty"`
	// Next is the dotted JSON path of the next page's cursor in a reply;
	// an absent, null or empty cursor ends the list.
	Next string `yaml:"next,omitempty"`
	// Cursor is the query parameter the cursor goes in. Default "cursor".
	Cursor string `yaml:"cursor,omitempty"`
	// Page is the query parameter of a page number, counted from first.
	Page string `yaml:"page,omitempty"`
	// First is the number of the first page. Default 1.
	First int `yaml:"first,omitempty"`
	// Offset is the query parameter of how many objects to skip.
	Offset string `yaml:"offset,omitempty"`
	// Size is the page size: a shorter page is the last.
	Size int `yaml:"size,omitempty"`
	// SizeParam is the query parameter the size is sent in.
	SizeParam string `yaml:"size_param,omitempty"`
	// Max bounds the pages one read follows. Default 20.
	Max int `yaml:"max,omitempty"`
}

// ObserveSQL is a query on the database the target writes to.
type ObserveSQL struct {
	// DSN is postgres://… (PostgreSQL, through pgx) or sqlite:PATH
	// (SQLite); it may use {{state_dir}} and {{env.NAME}} anywhere, the
	// whole DSN included. Never printed. Required.
	DSN string `yaml:"dsn"`
	// Query selects the rows of one intent, with {{marker}} where the
	// marker goes (passed as a bound parameter). Its first column is a
	// row's identity; the others are kept as evidence. It runs in a
	// read-only transaction. Required.
	Query string `yaml:"query"`
}

// ObserveMCP calls a read-only tool of an MCP server (the target's own,
// started again for the observer, or reached at a URL) and takes the
// items at a JSON path of its result.
type ObserveMCP struct {
	// Tool is the read-only tool, such as search_nodes. Required.
	Tool string `yaml:"tool"`
	// Arguments are the tool's arguments; {{marker}} may be in any string
	// at any depth.
	Arguments map[string]any `yaml:"arguments,omitempty"`
	// Items is the dotted JSON path of the list in the result ("" when
	// the result is the list).
	Items string `yaml:"items,omitempty"`
	// ID is the dotted JSON path of an item's identity; empty takes the
	// item's "id" when it has one, else its place in the list (after the
	// marker when the arguments hold it: the server chose the list).
	ID string `yaml:"id,omitempty"`
	// Command starts a stdio server of the observer's own, which reads
	// the same state as the target (a file, a database); it may use
	// {{state_dir}}, {{env.NAME}} and the fakes' placeholders.
	Command []string `yaml:"command,omitempty"`
	// Env is the environment of that process.
	Env map[string]string `yaml:"env,omitempty"`
	// Dir is its working directory.
	Dir string `yaml:"dir,omitempty"`
	// URL is a streamable HTTP endpoint instead, such as
	// "http://127.0.0.1:8080/mcp".
	URL string `yaml:"url,omitempty"`
}

// ObserveFile reads what a target keeps in files.
type ObserveFile struct {
	// Path is a file or a directory; it may use {{state_dir}} and
	// {{env.NAME}}. Required.
	Path string `yaml:"path"`
	// Format is json or jsonl; default by the extension (.jsonl and
	// .ndjson are JSONL).
	Format string `yaml:"format,omitempty"`
	// Items is the dotted JSON path of the list of items in a document.
	Items string `yaml:"items,omitempty"`
	// ID is the dotted JSON path of an item's identity; empty gives its
	// place.
	ID string `yaml:"id,omitempty"`
	// Match is the pattern of the file names read in a directory.
	Match string `yaml:"match,omitempty"`
}

// ObserveRedis reads what a target keeps in Redis, with read commands
// only: one of keys, stream and hash.
type ObserveRedis struct {
	// URL is redis://[user:password@]host:port[/db]; it may use
	// {{env.NAME}}, the whole URL included, or be the direct URL of a
	// dependency idemcheck starts ({{deps.NAME.direct_url}}). Required.
	URL string `yaml:"url"`
	// Keys is a SCAN pattern, which may use {{marker}}.
	Keys string `yaml:"keys,omitempty"`
	// Stream is the key of a stream: its entries are the items.
	Stream string `yaml:"stream,omitempty"`
	// Hash is the key of a hash: its fields are the items.
	Hash string `yaml:"hash,omitempty"`
}

// ObserveCount attributes effects by delta, for a target whose effects
// carry nothing a marker could ride in: one of sql and http, read before
// and after each intent; the change is the intent's. The target's intents
// then run one at a time (a burst is one intent), and what cannot run
// that way is listed as unsupported.
type ObserveCount struct {
	// SQL is a query with no {{marker}}: one number (a count, a sum), or
	// rows (rows: true).
	SQL *ObserveSQL `yaml:"sql,omitempty"`
	// HTTP is a read-back with no {{marker}}: the number at value, or,
	// without it, every object it lists.
	HTTP *ObserveCountHTTP `yaml:"http,omitempty"`
	// Rows says the query returns rows, the first column their identity.
	Rows bool `yaml:"rows,omitempty"`
	// Unit is what one effect adds to the number (default 1), such as the
	// amount each intent moves when the query sums amounts.
	Unit float64 `yaml:"unit,omitempty"`
}

// ObserveCountHTTP is a read-back a count source reads: the fields of
// an http source, without {{marker}}, and value.
type ObserveCountHTTP struct {
	// Path is the request's path and query under the target's url, such
	// as "/v1/stats". Required.
	Path string `yaml:"path"`
	// Method is the request's method. Default GET.
	Method string `yaml:"method,omitempty"`
	// Headers are sent with it; values may use {{env.NAME}}.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Items is the dotted JSON path of the list in the reply.
	Items string `yaml:"items,omitempty"`
	// ID is the dotted JSON path of an object's identity. Default "id".
	ID string `yaml:"id,omitempty"`
	// Pages says how to follow a paginated list.
	Pages *ObservePages `yaml:"pages,omitempty"`
	// Value is the dotted JSON path of a number in the reply (a total);
	// without it, every listed object is a row.
	Value string `yaml:"value,omitempty"`
}

// Rules implements schema.Ruler.
func (ObserveCountHTTP) Rules(r *schema.Rules) { ObserveHTTP{}.Rules(r) }

func (h *ObserveCountHTTP) http() *ObserveHTTP {
	return &ObserveHTTP{Path: h.Path, Method: h.Method, Headers: h.Headers, Items: h.Items, ID: h.ID, Pages: h.Pages}
}

// Settle bounds the polling of a source after each attempt.
type Settle struct {
	// Quiet is how long what the source lists must stay unchanged: 20ms
	// for an http source (DefaultSettleQuietHTTP) and 0, one read, for
	// the others when not set.
	Quiet Duration `yaml:"quiet,omitempty"`
	// Within bounds the whole poll. Default DefaultSettleWithin.
	Within Duration `yaml:"within,omitempty"`
	// Interval is the pause between reads. Default DefaultSettleInterval.
	Interval Duration `yaml:"interval,omitempty"`
}

// Defaults of an observer's settle.
const (
	DefaultSettleQuietHTTP = 20 * time.Millisecond
	DefaultSettleWithin    = 2 * time.Second
	DefaultSettleInterval  = 10 * time.Millisecond
)

// dsnSchemes are the databases an sql observer can read.
var dsnSchemes = []string{"postgres://", "postgresql://", "sqlite:", "file:"}

// observeSources lists, for messages, what an observer may read.
const observeSources = `http (a read-back of the target's own API, such as {path: "/v1/orders?search={{marker}}", items: data}), sql (a query on its database), mcp (a read-only tool of an MCP server), file (a JSON or JSONL file), redis (keys, a stream or a hash) or count (a number read before and after each intent)`

// Rules implements schema.Ruler.
func (Observer) Rules(r *schema.Rules) {
	r.Field("name").Pattern(`^[a-z0-9][a-z0-9._-]*$`, schema.Sprintf("invalid name %q: use lower-case letters, digits, '.', '_' and '-'"))
	r.Field("object").Pattern(`^[a-z0-9][a-z0-9._-]*$`, schema.Sprintf("invalid object %q: use lower-case letters, digits, '.', '_' and '-'"))
}

// Rules implements schema.Ruler.
func (ObserveHTTP) Rules(r *schema.Rules) {
	r.Field("path").Required(`the read-back's path under the target's url, such as "/v1/orders?search={{marker}}"`).
		Pattern(SlashPath, schema.Sprintf(`must start with "/": it is read under the target's url, got %q`))
	r.Field("method").Enum([]string{"GET", "POST", "HEAD"}, schema.Sprintf("unsupported method %q for a read-back: GET (or POST, for an API that searches by POST)"))
	r.Field("headers").Keys().Pattern(HeaderName, BadHeader)
}

// Rules implements schema.Ruler.
func (ObservePages) Rules(r *schema.Rules) {
	r.Field("size").Range(0, 10000, schema.Sprintf("page size %v is out of range; want 1 to 10000"))
	r.Field("max").Range(0, 1000, schema.Sprintf("%v pages is out of range; want 1 to 1000"))
}

// Rules implements schema.Ruler.
func (ObserveSQL) Rules(r *schema.Rules) {
	r.Field("dsn").Required("the database the target writes to: postgres://user@host:5432/db or sqlite:PATH (which may use {{state_dir}})")
	r.Field("query").Required(`the query that selects one intent's rows, such as "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"`)
}

// Rules implements schema.Ruler.
func (ObserveMCP) Rules(r *schema.Rules) {
	r.Field("tool").Required("a read-only tool of the server that lists what the intents made, such as search_nodes")
}

// Rules implements schema.Ruler.
func (ObserveFile) Rules(r *schema.Rules) {
	r.Field("path").Required("the file or directory the target writes, such as {{state_dir}}/store.json")
	r.Field("format").Enum([]string{"json", "jsonl"}, schema.Sprintf("unsupported format %q: json (one document a file) or jsonl (one a line)"))
}

// Rules implements schema.Ruler.
func (ObserveRedis) Rules(r *schema.Rules) {
	r.Field("url").Required("the Redis the target writes to: redis://host:port[/db], {{env.REDIS_URL}}, or {{deps.NAME.direct_url}} for one idemcheck starts")
}

// CheckObservers checks a target's observers; reached says whether the
// target has a URL an http read-back can be taken under.
func CheckObservers(c *Checker, obs []Observer, reached bool) {
	first := map[string]int{}
	for i := range obs {
		oc := c.Index(i)
		o := &obs[i]
		switch n := len(o.sources()); {
		case n == 0:
			oc.Errorf("set one source: %s", observeSources)
		case n > 1:
			oc.Errorf("set one source of %s, not several: declare an observer for each", strings.Join(o.sources(), ", "))
		}
		if o.HTTP != nil {
			if !reached {
				oc.Field("http").Errorf("a read-back is taken under the target's url, and this target has none: count its effects with sql, mcp, file, redis or count")
			}
			o.HTTP.check(oc.Field("http"), true)
		}
		if o.SQL != nil {
			o.SQL.check(oc.Field("sql"), true)
		}
		if o.MCP != nil {
			o.MCP.check(oc.Field("mcp"))
		}
		if o.File != nil {
			o.File.check(oc.Field("file"))
		}
		if o.Redis != nil {
			o.Redis.check(oc.Field("redis"))
		}
		if o.Count != nil {
			o.Count.check(oc.Field("count"), reached)
		}
		name := o.name()
		if j, dup := first[name]; dup && name != "" {
			oc.Errorf("two observers are called %q (the other is observe[%d]): give each a name", name, j)
		} else {
			first[name] = i
		}
		if o.Settle.Within > 0 && o.Settle.Quiet > o.Settle.Within {
			oc.Field("settle").Field("quiet").Errorf("%s is longer than within (%s): the source could never be seen to settle", o.Settle.Quiet, o.Settle.Within)
		}
	}
}

// ByDelta reports whether obs attribute effects by delta: one of them is
// a count source.
func ByDelta(obs []Observer) bool {
	for _, o := range obs {
		if o.Count != nil {
			return true
		}
	}
	return false
}

// sources names the sources the observer sets.
func (o *Observer) sources() []string {
	var out []string
	for _, s := range []struct {
		name string
		set  bool
	}{{"http", o.HTTP != nil}, {"sql", o.SQL != nil}, {"mcp", o.MCP != nil}, {"file", o.File != nil}, {"redis", o.Redis != nil}, {"count", o.Count != nil}} {
		if s.set {
			out = append(out, s.name)
		}
	}
	return out
}

// name is the observer's name, its default filled in.
func (o *Observer) name() string {
	if o.Name != "" {
		return o.Name
	}
	if s := o.sources(); len(s) == 1 {
		return s[0]
	}
	return ""
}

func (h *ObserveHTTP) check(c *Checker, marker bool) {
	if marker {
		c.Field("path").MarkerOnly(h.Path)
	} else {
		c.Field("path").NoPlaceholders(h.Path, "a count's read-back is the same for every intent: it takes no {{marker}}")
	}
	for _, k := range SortedKeys(h.Headers) {
		hc := c.Field("headers").Key(k)
		hc.MarkerOnly(hc.EnvRefs(h.Headers[k]))
	}
	if p := h.Pages; p != nil {
		if err := p.pages().Validate(); err != nil {
			c.Field("pages").Errorf("%s", strings.TrimPrefix(err.Error(), "pages: "))
		}
	}
}

// NoPlaceholders reports every placeholder of s, saying why.
func (c *Checker) NoPlaceholders(s, why string) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		c.Errorf("%s", p)
	}
	for _, n := range names {
		if !c.envNotAllowed(n) {
			c.Errorf("{{%s}} is not allowed here: %s", n, why)
		}
	}
}

func (p *ObservePages) pages() observe.Pages {
	return observe.Pages{Link: p.Link, Next: p.Next, Cursor: p.Cursor, Page: p.Page, First: p.First,
		Offset: p.Offset, Size: p.Size, SizeParam: p.SizeParam, Max: p.Max}
}

// observerDep is depPlaceholder for an observer's database, which speaks
// protocol (what the advice to declare a missing one names): it reads the
// dependency itself ({{deps.NAME.direct_url}}), never through the fault
// proxy ({{deps.NAME.url}}, {{deps.NAME.addr}}), where its reads would
// meet the faults armed for the target's calls and be counted among them.
func (c *Checker) observerDep(name, protocol string) bool {
	if !c.depPlaceholderOf(name, protocol) {
		return false
	}
	dep, field, ok := strings.Cut(strings.TrimPrefix(name, PhDeps), ".")
	if ok && field != "direct_url" && slices.Contains(depFields, field) && slices.Contains(c.file.Deps, dep) {
		c.Errorf("{{%s}} is the fault proxy in front of the dependency, where an observer's reads would meet the faults armed for the target: an observer reads the database itself, {{deps.%s.direct_url}}", name, dep)
	}
	return true
}

// checkDSN checks a DSN: its placeholders, then its scheme once the
// environment variables it uses are filled in, so that a whole DSN taken
// from the environment ("{{env.DATABASE_URL}}") is checked as it will be
// used.
func (c *Checker) checkDSN(dsn string) {
	rest := c.EnvRefs(dsn)
	for _, name := range Placeholders(rest) {
		if name != PhStateDir && !c.observerDep(name, "postgres") {
			c.Errorf("unknown placeholder {{%s}}: a dsn may use {{state_dir}}, {{deps.NAME.direct_url}} and {{env.NAME}}", name)
		}
	}
	full := FillEnv(dsn, c.file.Env())
	if strings.Contains(full, "{{env.") || strings.HasPrefix(full, "{{"+PhDeps) {
		return // a variable not set (reported above), or a dependency's URL
	}
	if dsn != "" && !slices.ContainsFunc(dsnSchemes, func(pre string) bool { return strings.HasPrefix(full, pre) }) {
		// The DSN may hold a password: say what it starts with, never what it is.
		what := "unsupported database"
		if full != dsn {
			what = "unsupported database (after filling in the environment)"
		}
		c.Errorf("%s: expected postgres://… (PostgreSQL) or sqlite:PATH (SQLite)", what)
	}
}

func (s *ObserveSQL) check(c *Checker, marker bool) {
	c.Field("dsn").checkDSN(s.DSN)
	q := c.Field("query")
	if strings.TrimSpace(s.Query) == "" && s.Query != "" {
		q.Missing(`the query that selects one intent's rows, such as "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"`)
		return
	}
	uses := strings.Contains(s.Query, "{{marker}}") || strings.Contains(s.Query, "$marker")
	switch {
	case marker && s.Query != "" && !uses:
		q.Errorf("does not use {{marker}}: without it every row would be counted for every intent; select the rows whose data holds the marker, such as WHERE note LIKE '%%' || {{marker}} || '%%', or declare a count source to attribute by delta")
	case !marker && uses:
		q.Errorf("uses {{marker}}: a count source reads the same number before and after each intent, such as SELECT count(*) FROM transactions; a query that selects an intent's rows by its marker is an sql source")
	}
	for _, name := range Placeholders(s.Query) {
		if name != PhMarker {
			q.Errorf("unknown placeholder {{%s}}: a query may use {{marker}}", name)
		}
	}
}

func (m *ObserveMCP) check(c *Checker) {
	switch {
	case len(m.Command) == 0 && m.URL == "":
		c.Field("command").Missing(`the server the tool is called on: command (a stdio server of the observer's own, reading the target's state, such as ["./memory", "-memory", "{{state_dir}}/memory.json"]) or url (a streamable HTTP endpoint)`)
	case len(m.Command) > 0 && m.URL != "":
		c.Field("command").Errorf("set command (a stdio server) or url (a streamable HTTP server), not both")
	}
	noPort := func(c *Checker, s string) {
		if c.TargetTemplate(s) {
			c.Errorf("{{port}} is the target's: an observer's server reads the target's state at a path or URL of its own")
		}
	}
	for i, a := range m.Command {
		noPort(c.Field("command").Index(i), a)
	}
	for _, k := range SortedKeys(m.Env) {
		ec := c.Field("env").Key(k)
		noPort(ec, ec.EnvRefs(m.Env[k]))
	}
	noPort(c.Field("dir"), m.Dir)
	uc := c.Field("url")
	noPort(uc, uc.EnvRefs(m.URL))
	ac := c.Field("arguments")
	for _, k := range SortedKeys(m.Arguments) {
		checkArgument(ac.Key(k), m.Arguments[k], 0)
	}
}

// checkArgument checks the strings of an argument, at any depth.
func checkArgument(c *Checker, v any, depth int) {
	if depth > 32 {
		c.Errorf("nested more than 32 levels deep")
		return
	}
	switch x := v.(type) {
	case string:
		c.MarkerOnly(x)
	case []any:
		for i, e := range x {
			checkArgument(c.Index(i), e, depth+1)
		}
	case map[string]any:
		for _, k := range SortedKeys(x) {
			checkArgument(c.Key(k), x[k], depth+1)
		}
	}
}

func (f *ObserveFile) check(c *Checker) {
	pc := c.Field("path")
	for _, n := range Placeholders(pc.EnvRefs(f.Path)) {
		if n != PhStateDir {
			pc.Errorf("unknown placeholder {{%s}}: a file's path may use {{state_dir}} and {{env.NAME}} (the items holding the marker are found inside)", n)
		}
	}
	if err := (observe.File{Path: "x", Format: f.Format, Match: f.Match}).Validate(); err != nil && f.Match != "" {
		c.Field("match").Errorf("%v", err)
	}
}

func (r *ObserveRedis) check(c *Checker) {
	uc := c.Field("url")
	for _, n := range Placeholders(uc.EnvRefs(r.URL)) {
		if !uc.observerDep(n, "redis") {
			uc.Errorf("unknown placeholder {{%s}}: a Redis url may use {{deps.NAME.direct_url}} and {{env.NAME}}", n)
		}
	}
	// A placeholder in a stream or a hash is reported at its field below,
	// not again as the source's.
	src := observe.Redis{URL: FillEnv(r.URL, c.file.Env()), Keys: r.Keys,
		Stream: strings.ReplaceAll(r.Stream, "{{", "_"), Hash: strings.ReplaceAll(r.Hash, "{{", "_")}
	if strings.Contains(src.URL, "{{") {
		src.URL = "redis://127.0.0.1:6379"
	}
	if err := src.Validate(); err != nil && r.URL != "" {
		c.Errorf("%v", err)
	}
	for _, f := range []struct{ name, v string }{{"keys", r.Keys}, {"stream", r.Stream}, {"hash", r.Hash}} {
		for _, n := range Placeholders(f.v) {
			switch {
			case n == PhMarker && f.name != "keys":
				c.Field(f.name).Errorf("{{marker}} can only be in keys: a %s is one key, and its %s that hold the marker are the intent's", f.name, map[string]string{"stream": "entries", "hash": "fields"}[f.name])
			case n != PhMarker:
				c.Field(f.name).Errorf("unknown placeholder {{%s}}: only keys may use {{marker}}", n)
			}
		}
	}
}

func (k *ObserveCount) check(c *Checker, reached bool) {
	switch {
	case k.SQL == nil && k.HTTP == nil:
		c.Errorf("set sql (a query returning one number, such as SELECT count(*) FROM transactions) or http (a read-back of a total, or of every object)")
	case k.SQL != nil && k.HTTP != nil:
		c.Errorf("set sql or http, not both: declare two observers for two sources")
	}
	if k.SQL != nil {
		k.SQL.check(c.Field("sql"), false)
	}
	if k.HTTP != nil {
		if !reached {
			c.Field("http").Errorf("a read-back is taken under the target's url, and this target has none: count with sql")
		}
		k.HTTP.http().check(c.Field("http"), false)
		if k.Rows && k.HTTP.Value != "" {
			c.Field("rows").Errorf("value reads one number; without it, the listed objects are the rows")
		}
	}
	if k.Unit < 0 {
		c.Field("unit").Errorf("%v: what one effect adds, above zero", k.Unit)
	}
	if k.Rows && k.Unit != 0 {
		c.Field("unit").Errorf("unit counts a number; rows are counted one by one")
	}
}

// Defaults fills in an observer's defaults.
func (o *Observer) Defaults() {
	o.Name = o.name()
	if o.Settle.Within == 0 {
		o.Settle.Within = Duration(DefaultSettleWithin)
	}
	if o.Settle.Interval == 0 {
		o.Settle.Interval = Duration(DefaultSettleInterval)
	}
	if h := o.HTTP; h != nil {
		if o.Settle.Quiet == 0 {
			o.Settle.Quiet = Duration(DefaultSettleQuietHTTP)
		}
		h.defaults()
		if o.Kind == "" {
			o.Kind = "object"
		}
	}
	if o.Count != nil && o.Count.HTTP != nil {
		h := o.Count.HTTP.http()
		h.defaults()
		o.Count.HTTP.Method, o.Count.HTTP.ID = h.Method, h.ID
	}
	switch {
	case o.Kind != "":
	case o.SQL != nil, o.Count != nil:
		o.Kind = "row"
	case o.MCP != nil, o.File != nil:
		o.Kind = "item"
	case o.Redis != nil:
		o.Kind = "entry"
	}
}

func (h *ObserveHTTP) defaults() {
	if h.Method == "" {
		h.Method = "GET"
	}
	if h.ID == "" {
		h.ID = "id"
	}
}

func (h *ObserveHTTP) source(b *Builder) observe.HTTP {
	out := observe.HTTP{URL: h.Path, Method: h.Method, Headers: b.EnvMap(h.Headers), Items: h.Items, ID: h.ID}
	if h.Pages != nil {
		out.Pages = h.Pages.pages()
	}
	return out
}

// Source returns the observe.Source the observer declares, with its
// environment values and files resolved by b (nil for none).
func (o *Observer) Source(b *Builder) observe.Source {
	switch {
	case o.HTTP != nil:
		return o.HTTP.source(b)
	case o.SQL != nil:
		return observe.SQL{DSN: b.dsn(b.Env(o.SQL.DSN)), Query: o.SQL.Query}
	case o.MCP != nil:
		m := o.MCP
		cmd, env, dir := m.Command, m.Env, m.Dir
		if len(cmd) > 0 {
			cmd, env, dir = b.Command(m.Command, m.Env, m.Dir)
		}
		return observe.MCP{Tool: m.Tool, Arguments: m.Arguments, Items: m.Items, ID: m.ID, Command: cmd, Env: env, Dir: dir, URL: b.Env(m.URL)}
	case o.File != nil:
		f := o.File
		p := b.Env(f.Path)
		if !strings.HasPrefix(p, "{{") {
			p = b.File(p)
		}
		return observe.File{Path: p, Format: f.Format, Items: f.Items, ID: f.ID, Match: f.Match}
	case o.Redis != nil:
		r := o.Redis
		return observe.Redis{URL: b.Env(r.URL), Keys: r.Keys, Stream: r.Stream, Hash: r.Hash}
	case o.Count != nil:
		k := o.Count
		out := observe.Count{Rows: k.Rows, Unit: k.Unit}
		if k.SQL != nil {
			out.SQL = &observe.SQL{DSN: b.dsn(b.Env(k.SQL.DSN)), Query: k.SQL.Query}
		}
		if k.HTTP != nil {
			h := k.HTTP.http().source(b)
			h.Value = k.HTTP.Value
			out.HTTP = &h
		}
		return out
	}
	return nil
}

// starters turns observers into what harness.Spec.Observers takes, with
// their environment values and files resolved by b.
func starters(b *Builder, obs []Observer) []harness.ObserverStarter {
	var out []harness.ObserverStarter
	for i := range obs {
		o := &obs[i]
		src := o.Source(b)
		if src == nil {
			continue
		}
		settle := observe.Settle{Quiet: o.Settle.Quiet.Std(), Within: o.Settle.Within.Std(), Interval: o.Settle.Interval.Std()}
		out = append(out, observe.Spec{Name: o.Name, Kind: o.Kind, Object: o.Object, Settle: settle, Source: src}.Starter())
	}
	return out
}

// String names the observer's source for messages: "orders-db (sql)".
func (o *Observer) String() string {
	return fmt.Sprintf("%s (%s)", o.name(), strings.Join(o.sources(), ", "))
}
