package section

import (
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/observe"
)

// Observer is one source that counts a target's side effects in the
// target's own data, by the marker of each intent: exactly one of HTTP (a
// read-back of its own API) and SQL (a query on its database). What an
// observer counts enters the same ledger as the fakes' effects, so every
// check judges it alike, and the report names the source that saw it.
//
//	observe:
//	  - name: orders-api
//	    http: {path: "/v1/orders?search={{marker}}", items: data}
//	  - name: orders-db
//	    sql: {dsn: "postgres://app@127.0.0.1:5432/shop", query: "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"}
type Observer struct {
	// Name names the source in reports. Default: "http" or "sql"; names
	// are unique within a target.
	Name string `yaml:"name,omitempty"`
	// Kind is the kind of effect one row or object is, e.g. "order".
	// Default: "object" for http, "row" for sql.
	Kind string `yaml:"kind,omitempty"`
	// HTTP reads back through the target's own API.
	HTTP *ObserveHTTP `yaml:"http,omitempty"`
	// SQL queries the database the target writes to.
	SQL *ObserveSQL `yaml:"sql,omitempty"`
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
	// Headers are sent with it; values may use {{marker}}.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Items is the dotted JSON path of the list in the reply, e.g. "data";
	// empty when the reply is the list.
	Items string `yaml:"items,omitempty"`
	// ID is the dotted JSON path of an object's identity. Default "id".
	ID string `yaml:"id,omitempty"`
}

// ObserveSQL is a query on the database the target writes to.
type ObserveSQL struct {
	// DSN is postgres://… (PostgreSQL, through pgx) or sqlite:PATH
	// (SQLite); it may use {{state_dir}}. Never printed. Required.
	DSN string `yaml:"dsn"`
	// Query selects the rows of one intent, with {{marker}} where the
	// marker goes (passed as a bound parameter). Its first column is a
	// row's identity; the others are kept as evidence. Required.
	Query string `yaml:"query"`
}

// Settle bounds the polling of a source after each attempt.
type Settle struct {
	// Quiet is how long what the source lists must stay unchanged.
	// Default DefaultSettleQuietHTTP for http, 0 (one read) for sql.
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

// Rules implements schema.Ruler.
func (Observer) Rules(r *schema.Rules) {
	r.Field("name").Pattern(`^[a-z0-9][a-z0-9._-]*$`, schema.Sprintf("invalid name %q: use lower-case letters, digits, '.', '_' and '-'"))
}

// Rules implements schema.Ruler.
func (ObserveHTTP) Rules(r *schema.Rules) {
	r.Field("path").Required(`the read-back's path under the target's url, such as "/v1/orders?search={{marker}}"`).
		Pattern(SlashPath, schema.Sprintf(`must start with "/": it is read under the target's url, got %q`))
	r.Field("method").Enum([]string{"GET", "POST", "HEAD"}, schema.Sprintf("unsupported method %q for a read-back: GET (or POST, for an API that searches by POST)"))
	r.Field("headers").Keys().Pattern(HeaderName, BadHeader)
}

// Rules implements schema.Ruler.
func (ObserveSQL) Rules(r *schema.Rules) {
	r.Field("dsn").Required("the database the target writes to: postgres://user@host:5432/db or sqlite:PATH (which may use {{state_dir}})")
	r.Field("query").Required(`the query that selects one intent's rows, such as "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"`)
}

// CheckObservers checks a target's observers; reached says whether the
// target has a URL an http read-back can be taken under.
func CheckObservers(c *Checker, obs []Observer, reached bool) {
	first := map[string]int{}
	for i := range obs {
		oc := c.Index(i)
		o := &obs[i]
		switch {
		case o.HTTP == nil && o.SQL == nil:
			oc.Errorf("set http (a read-back of the target's own API, such as {path: \"/v1/orders?search={{marker}}\", items: data}) or sql (a query on its database, {dsn: \"postgres://…\", query: \"SELECT id FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'\"})")
		case o.HTTP != nil && o.SQL != nil:
			oc.Errorf("set http or sql, not both: declare two observers for two sources")
		}
		if o.HTTP != nil {
			if !reached {
				oc.Field("http").Errorf("a read-back is taken under the target's url, and this target has none: count its effects with sql, a query on its database")
			}
			o.HTTP.check(oc.Field("http"))
		}
		if o.SQL != nil {
			o.SQL.check(oc.Field("sql"))
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

// name is the observer's name, its default filled in.
func (o *Observer) name() string {
	switch {
	case o.Name != "":
		return o.Name
	case o.HTTP != nil && o.SQL == nil:
		return "http"
	case o.SQL != nil && o.HTTP == nil:
		return "sql"
	}
	return ""
}

func (h *ObserveHTTP) check(c *Checker) {
	c.Field("path").MarkerOnly(h.Path)
	for _, k := range SortedKeys(h.Headers) {
		hc := c.Field("headers").Key(k)
		hc.MarkerOnly(hc.EnvRefs(h.Headers[k]))
	}
}

func (s *ObserveSQL) check(c *Checker) {
	dsn := c.Field("dsn")
	if s.DSN != "" && !slices.ContainsFunc(dsnSchemes, func(pre string) bool { return strings.HasPrefix(s.DSN, pre) }) {
		// The DSN may hold a password: say what it starts with, never what it is.
		dsn.Errorf("unsupported database: expected postgres://… (PostgreSQL) or sqlite:PATH (SQLite)")
	}
	for _, name := range Placeholders(dsn.EnvRefs(s.DSN)) {
		if name != PhStateDir {
			dsn.Errorf("unknown placeholder {{%s}}: a dsn may use {{state_dir}} and {{env.NAME}}", name)
		}
	}
	q := c.Field("query")
	if strings.TrimSpace(s.Query) != "" && !strings.Contains(s.Query, "{{marker}}") && !strings.Contains(s.Query, "$marker") {
		q.Errorf("does not use {{marker}}: without it every row would be counted for every intent; select the rows whose data holds the marker, such as WHERE note LIKE '%%' || {{marker}} || '%%'")
	}
	if strings.TrimSpace(s.Query) == "" && s.Query != "" {
		q.Missing(`the query that selects one intent's rows, such as "SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'"`)
	}
	for _, name := range Placeholders(s.Query) {
		if name != PhMarker {
			q.Errorf("unknown placeholder {{%s}}: a query may use {{marker}}", name)
		}
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
		if h.Method == "" {
			h.Method = "GET"
		}
		if h.ID == "" {
			h.ID = "id"
		}
		if o.Kind == "" {
			o.Kind = "object"
		}
	}
	if o.SQL != nil && o.Kind == "" {
		o.Kind = "row"
	}
}

// starters turns observers into what harness.Spec.Observers takes, with
// their environment values and files resolved by b.
func starters(b *Builder, obs []Observer) []harness.ObserverStarter {
	var out []harness.ObserverStarter
	for _, o := range obs {
		settle := observe.Settle{Quiet: o.Settle.Quiet.Std(), Within: o.Settle.Within.Std(), Interval: o.Settle.Interval.Std()}
		switch {
		case o.HTTP != nil:
			out = append(out, observe.HTTPStarter(observe.HTTP{Name: o.Name, Kind: o.Kind, URL: o.HTTP.Path, Method: o.HTTP.Method,
				Headers: b.EnvMap(o.HTTP.Headers), Items: o.HTTP.Items, ID: o.HTTP.ID, Settle: settle}))
		case o.SQL != nil:
			out = append(out, observe.SQLStarter(observe.SQL{Name: o.Name, Kind: o.Kind, DSN: b.dsn(b.Env(o.SQL.DSN)), Query: o.SQL.Query, Settle: settle}))
		}
	}
	return out
}
