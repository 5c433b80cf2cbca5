package config

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
