// Package launch starts a target's declared dependency for one run: the
// real database (a throwaway one, or the address the configuration gives),
// and the protocol proxy in front of it (deps/postgres, deps/redis). It
// returns the URL the target is to be handed instead of the database's
// ({{deps.NAME.url}}), the database's own URL for observers that count
// effects there ({{deps.NAME.direct_url}}), and the proxy the harness arms
// faults in.
//
// A throwaway PostgreSQL is one server per process, shared by every
// dependency that asks for one and stopped when the last of them closes;
// each dependency gets a database of its own, dropped when it closes. A
// throwaway Redis is a server of its own. Nothing outlives Close: the
// servers run in their own process groups, die with idemcheck, and leave
// no data directory behind.
//
// What cannot be tested is an error that says so: a dependency that does
// not answer, or speaks another protocol than the one declared (the
// proxies check at start), and a URL that requires TLS, which a proxy
// that speaks plain text cannot honour.
package launch
