package config

import (
	"slices"
	"strings"
	"time"
)

// Defaults of an observer's settle.
const (
	DefaultSettleQuietHTTP = 20 * time.Millisecond
	DefaultSettleWithin    = 2 * time.Second
	DefaultSettleInterval  = 10 * time.Millisecond
)

// dsnSchemes are the databases an sql observer can read.
var dsnSchemes = []string{"postgres://", "postgresql://", "sqlite:", "file:"}

func (v *validator) observers(p string, obs []Observer) {
	first := map[string]int{}
	for i := range obs {
		op := pathIndex(p, i)
		o := &obs[i]
		switch {
		case o.HTTP == nil && o.SQL == nil:
			v.errorf(op, "set http (a read-back of the target's own API, such as {path: \"/v1/orders?search={{marker}}\", items: data}) or sql (a query on its database, {dsn: \"postgres://…\", query: \"SELECT id FROM orders WHERE note LIKE '%%' || {{marker}} || '%%'\"})")
		case o.HTTP != nil && o.SQL != nil:
			v.errorf(op, "set http or sql, not both: declare two observers for two sources")
		}
		if o.HTTP != nil {
			v.observeHTTP(pathField(op, "http"), o.HTTP)
		}
		if o.SQL != nil {
			v.observeSQL(pathField(op, "sql"), o.SQL)
		}
		if o.Name != "" && !targetName.MatchString(o.Name) {
			v.errorf(pathField(op, "name"), "invalid name %q: use lower-case letters, digits, '.', '_' and '-'", o.Name)
		}
		name := o.name()
		if j, dup := first[name]; dup && name != "" {
			v.errorf(op, "two observers are called %q (the other is observe[%d]): give each a name", name, j)
		} else {
			first[name] = i
		}
		s := pathField(op, "settle")
		for _, d := range []struct {
			f string
			v Duration
		}{{"quiet", o.Settle.Quiet}, {"within", o.Settle.Within}, {"interval", o.Settle.Interval}} {
			if d.v < 0 {
				v.errorf(pathField(s, d.f), "must not be negative, got %s", d.v)
			}
		}
		if o.Settle.Within > 0 && o.Settle.Quiet > o.Settle.Within {
			v.errorf(pathField(s, "quiet"), "%s is longer than within (%s): the source could never be seen to settle", o.Settle.Quiet, o.Settle.Within)
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

func (v *validator) observeHTTP(p string, h *ObserveHTTP) {
	path := pathField(p, "path")
	switch {
	case h.Path == "":
		v.missing(path, "the read-back's path under the target's url, such as \"/v1/orders?search={{marker}}\"")
	case !strings.HasPrefix(h.Path, "/"):
		v.errorf(path, "must start with \"/\": it is read under the target's url, got %q", h.Path)
	}
	v.markerOnly(path, h.Path)
	if h.Method != "" && !slices.Contains([]string{"GET", "POST", "HEAD"}, h.Method) {
		v.errorf(pathField(p, "method"), "unsupported method %q for a read-back: GET (or POST, for an API that searches by POST)", h.Method)
	}
	for _, k := range sortedKeys(h.Headers) {
		if !validHeaderName(k) {
			v.errorf(pathKey(pathField(p, "headers"), k), "invalid header name %q", k)
		}
		v.markerOnly(pathKey(pathField(p, "headers"), k), v.envRefs(pathKey(pathField(p, "headers"), k), h.Headers[k]))
	}
}

func (v *validator) observeSQL(p string, s *ObserveSQL) {
	dsn := pathField(p, "dsn")
	switch {
	case s.DSN == "":
		v.missing(dsn, "the database the target writes to: postgres://user@host:5432/db or sqlite:PATH (which may use {{state_dir}})")
	case !slices.ContainsFunc(dsnSchemes, func(pre string) bool { return strings.HasPrefix(s.DSN, pre) }):
		// The DSN may hold a password: say what it starts with, never what it is.
		v.errorf(dsn, "unsupported database: expected postgres://… (PostgreSQL) or sqlite:PATH (SQLite)")
	}
	for _, name := range Placeholders(v.envRefs(dsn, s.DSN)) {
		if name != phStateDir {
			v.errorf(dsn, "unknown placeholder {{%s}}: a dsn may use {{state_dir}} and {{env.NAME}}", name)
		}
	}
	q := pathField(p, "query")
	switch {
	case strings.TrimSpace(s.Query) == "":
		v.missing(q, "the query that selects one intent's rows, such as \"SELECT id FROM orders WHERE note LIKE '%' || {{marker}} || '%'\"")
	case !strings.Contains(s.Query, "{{marker}}") && !strings.Contains(s.Query, "$marker"):
		v.errorf(q, "does not use {{marker}}: without it every row would be counted for every intent; select the rows whose data holds the marker, such as WHERE note LIKE '%%' || {{marker}} || '%%'")
	}
	for _, name := range Placeholders(s.Query) {
		if name != "marker" {
			v.errorf(q, "unknown placeholder {{%s}}: a query may use {{marker}}", name)
		}
	}
}

// markerOnly reports placeholders other than {{marker}}.
func (v *validator) markerOnly(p, s string) {
	names, problems := scanPlaceholders(s)
	for _, pr := range problems {
		v.errorf(p, "%s", pr)
	}
	for _, n := range names {
		if n != "marker" && !v.envNotAllowed(p, n) {
			v.errorf(p, "unknown placeholder {{%s}}: a read-back may use {{marker}}", n)
		}
	}
}

// applyDefaults fills in an observer's defaults.
func (o *Observer) applyDefaults() {
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
