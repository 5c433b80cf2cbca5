package section

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/deps/launch"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// Dependency is a database or cache the target keeps its own state in:
// idemcheck starts it (a throwaway one) or is given its address, puts a
// proxy that speaks its protocol in front of it, and hands the target the
// proxy's URL as {{deps.NAME.url}} (in its env, args or DSN). The
// dependency faults (dep-error, dep-reset-after-commit, dep-stall,
// dep-refuse) and the crashes at a commit (crash-before-commit,
// crash-after-commit) act there.
//
//	dependencies:
//	  db: {protocol: postgres}                                 # a throwaway PostgreSQL
//	  cache: {protocol: redis, url: "redis://127.0.0.1:6379/0"} # one that runs already
type Dependency struct {
	// Protocol is what the dependency speaks: postgres or redis.
	// Required.
	Protocol string `yaml:"protocol"`
	// URL is the running database's URL (postgres://user@host:5432/db,
	// redis://host:6379/0; it may use {{env.NAME}}); absent, idemcheck
	// starts a throwaway one for each instance of the target and removes
	// it after the run. Never printed.
	URL string `yaml:"url,omitempty"`
	// Attribute says how the proxy tells which intent a statement is
	// for: "marker" (statements that carry the intent's marker, and
	// their transaction: the target stores the request's marker with
	// its rows) or "in-flight" (also every other statement while one
	// attempt runs alone, for a target that stores no marker). The
	// default is in-flight when the target declares a count observer
	// (it attributes effects by delta, one intent at a time, and its
	// requests may carry no {{marker}}), marker otherwise. A dependency
	// fault that never acted because the proxy never saw the intent's
	// marker leaves its check not examined, with that reason.
	Attribute string `yaml:"attribute,omitempty"`
}

// The ways a dependency's statements are attributed.
const (
	AttributeMarker   = "marker"
	AttributeInFlight = "in-flight"
)

// Rules implements schema.Ruler.
func (Dependency) Rules(r *schema.Rules) {
	r.Field("protocol").Required("what the dependency speaks: postgres or redis").
		Enum(launch.Protocols, schema.Sprintf("unsupported protocol %q: the dependency proxies speak postgres and redis"))
	r.Field("attribute").Enum([]string{AttributeMarker, AttributeInFlight}, schema.Sprintf("unknown attribution %q: marker or in-flight (the default with a count observer)"))
}

// depSchemes are the URL schemes each protocol's URL may have.
var depSchemes = map[string][]string{
	launch.Postgres: {"postgres", "postgresql"},
	launch.Redis:    {"redis"},
}

// CheckDependencies checks a target's dependencies.
func CheckDependencies(c *Checker, ds map[string]Dependency) {
	for _, name := range SortedKeys(ds) {
		dc := c.Key(name)
		d := ds[name]
		if !depName.MatchString(name) {
			dc.Errorf("invalid dependency name %q: use letters, digits and '_', starting with a letter (it is written {{deps.%s.url}})", name, name)
		}
		if d.URL == "" {
			continue
		}
		uc := dc.Field("url")
		uc.EnvRefs(d.URL) // records the variables' values, reports those not set
		raw := FillEnv(d.URL, c.file.Env())
		if strings.Contains(raw, "{{") {
			continue // a variable not set (reported above), or another placeholder
		}
		u, err := url.Parse(raw)
		switch {
		case err != nil || u.Host == "":
			// The URL may hold a password: never repeat it.
			if raw != d.URL {
				uc.Errorf("does not parse as scheme://host:port/… (after filling in the environment)")
			} else {
				uc.Errorf("does not parse as scheme://host:port/…")
			}
		case u.Scheme == "rediss":
			uc.Errorf("rediss:// asks for TLS, and the proxy speaks plain text only: give the plain-text redis:// address for the test")
		case !slices.Contains(depSchemes[d.Protocol], u.Scheme) && depSchemes[d.Protocol] != nil:
			uc.Errorf("a %s URL starts with %s://, not %s://", d.Protocol, depSchemes[d.Protocol][0], u.Scheme)
		}
	}
}

// depPlaceholder says whether name is the placeholder of a declared
// dependency, reporting one of an undeclared dependency or field.
func (c *Checker) depPlaceholder(name string) bool { return c.depPlaceholderOf(name, "") }

// depPlaceholderOf is depPlaceholder where the dependency must speak
// protocol ("" when any may), which the advice to declare it names.
func (c *Checker) depPlaceholderOf(name, protocol string) bool {
	if !strings.HasPrefix(name, PhDeps) {
		return false
	}
	parts := strings.Split(strings.TrimPrefix(name, PhDeps), ".")
	switch {
	case len(parts) != 2 || !slices.Contains(depFields, parts[1]):
		c.Errorf("unknown placeholder {{%s}}: a dependency gives {{deps.NAME.url}}, {{deps.NAME.addr}} and {{deps.NAME.direct_url}}", name)
	case !slices.Contains(c.file.Deps, parts[0]) && closest(parts[0], c.file.Deps) != "":
		c.Errorf("{{%s}} names no declared dependency: did you mean {{%s%s.%s}}? (the target declares %s)",
			name, PhDeps, closest(parts[0], c.file.Deps), parts[1], strings.Join(c.file.Deps, ", "))
	case !slices.Contains(c.file.Deps, parts[0]):
		example := fmt.Sprintf("dependencies: {%s: {protocol: postgres}} (or redis)", parts[0])
		if protocol != "" {
			example = fmt.Sprintf("dependencies: {%s: {protocol: %s}}", parts[0], protocol)
		}
		c.Errorf("{{%s}} needs a dependency called %q, which this target does not declare: add it under dependencies, e.g. %s", name, parts[0], example)
	}
	return true
}

// closest is the name among known that got is a typo of, or "".
func closest(got string, known []string) string {
	q := strings.TrimSuffix(strings.TrimPrefix(schema.DidYouMean(got, known), "did you mean "), "? ")
	name, err := strconv.Unquote(q)
	if err != nil {
		return ""
	}
	return name
}

// depFields are the placeholders each dependency fills in.
var depFields = []string{"url", "addr", "direct_url"}

// dependencies turns a target's dependencies into harness.Spec's, their
// environment values resolved by b, in name order. byDelta says the
// target declares a count observer: an attribution left unset is then
// in-flight (see Dependency.Attribute).
func dependencies(b *Builder, ds map[string]Dependency, byDelta bool) []harness.Dependency {
	var out []harness.Dependency
	for _, name := range SortedKeys(ds) {
		d := ds[name]
		inFlight := d.Attribute == AttributeInFlight || d.Attribute == "" && byDelta
		out = append(out, harness.Dependency{Name: name, Protocol: d.Protocol, URL: b.Env(d.URL), InFlight: inFlight})
	}
	return out
}

// depName is what a dependency's name looks like.
var depName = lazyregexp.New(`^[A-Za-z][A-Za-z0-9_]*$`)
