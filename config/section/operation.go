package section

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/config/schema"
)

// Operation is one named request an HTTP target (http, container)
// accepts.
type Operation struct {
	// Name identifies the operation within its target. Required, unique.
	Name string `yaml:"name"`
	// Mutating says whether the operation changes state. Required: the
	// harness cannot guess, and the checks differ (a safe operation must
	// cause no effect at all).
	Mutating *bool `yaml:"mutating"`
	// Method is the HTTP method; GET, POST, PUT, PATCH or DELETE. Required.
	Method string `yaml:"method,omitempty"`
	// Path is appended to the target's URL; it starts with "/". Required.
	Path string `yaml:"path,omitempty"`
	// Headers are sent with every attempt. Values may use {{env.NAME}}, a
	// variable of idemcheck's own environment; it and the values of
	// credential headers (Authorization, Cookie, *-Token, *-Key) are never
	// printed.
	Headers map[string]string `yaml:"headers,omitempty"`
	// Body is the request body.
	Body string `yaml:"body,omitempty"`
	// Inputs are the values the harness generates for {{input.NAME}}.
	Inputs map[string]Input `yaml:"inputs,omitempty"`
	// DryRun, Effect and Identity override the target's settings for this
	// operation when set.
	DryRun   *DryRun  `yaml:"dry_run,omitempty"`
	Effect   *Locator `yaml:"effect,omitempty"`
	Identity *Locator `yaml:"identity,omitempty"`
}

// Methods are the HTTP methods an operation may use.
var Methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// Rules implements schema.Ruler.
func (Operation) Rules(r *schema.Rules) {
	r.Field("name").Required(`give the operation a name, such as "create-charge"`)
	r.Field("mutating").Required("say whether the operation changes state (mutating: true) or only reads (mutating: false)")
	r.Field("method").Required("one of "+strings.Join(Methods, ", ")).Enum(Methods, func(got any) string {
		m := fmt.Sprint(got)
		hint := ""
		if slices.Contains(Methods, strings.ToUpper(m)) {
			hint = fmt.Sprintf("; write it in upper case: %q", strings.ToUpper(m))
		}
		return fmt.Sprintf("unknown method %q (expected one of %s)%s", m, strings.Join(Methods, ", "), hint)
	})
	r.Field("path").Required(`the request path under the target's URL, starting with "/"`).Pattern(SlashPath, BadSlashPath).Pattern(NoControl, BadControl)
	r.Field("headers").Keys().Pattern(HeaderName, BadHeader)
	r.Field("headers").Items().Pattern(NoControl, BadControl)
	r.Field("inputs").Keys().Pattern(InputName, BadInputName)
}

// Check checks what the schema cannot say of an operation: its
// placeholders, and that it carries its intent's marker.
func (op *Operation) Check(c *Checker) {
	inputs := SortedKeys(op.Inputs)
	path, headers, body := c.Field("path"), c.Field("headers"), c.Field("body")
	used := path.IntentTemplate(op.Path, "operation", inputs)
	for _, k := range SortedKeys(op.Headers) {
		hc := headers.Key(k)
		used = used.Or(hc.IntentTemplate(hc.EnvRefs(op.Headers[k]), "operation", inputs))
	}
	used = used.Or(body.IntentTemplate(op.Body, "operation", inputs))
	CheckInputs(c.Field("inputs"), op.Inputs)
	if op.DryRun != nil {
		op.DryRun.Check(c.Field("dry_run"))
	}
	if op.Effect != nil {
		op.Effect.Check(c.Field("effect"), true)
	}
	if op.Identity != nil {
		op.Identity.Check(c.Field("identity"), true)
	}
	// Without a marker, the fakes cannot tell which request caused an
	// effect, unless a count observer attributes by delta (a ledger API
	// whose body holds only numbers and ids). Stay quiet if the strings
	// that would hold it are broken; an empty path (a starter's TODO) is
	// not, and both are said at once.
	if used.Marker || c.ByDelta() || (path.Refused() && op.Path != "") || headers.Refused() || body.Refused() || op.Mutating == nil {
		return
	}
	if *op.Mutating {
		c.Errorf("mutating operation %q does not use {{marker}}: put {{marker}} in its path, a header or the body. The harness gives every intent a unique marker, which the target passes on to its downstream calls (a payment description, an email subject), so that the fakes can attribute each side effect to the request that caused it. A target whose requests have nowhere to carry it (only numbers and ids) declares a count observer instead, to attribute by delta", op.Name)
	} else {
		c.Errorf("safe operation %q does not use {{marker}}: put {{marker}} in its path, a header or the body, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one), or declare a count observer to attribute by delta", op.Name)
	}
}

// Defaults fills in the operation's defaults.
func (op *Operation) Defaults() {
	op.DryRun.Defaults()
	DefaultInputs(op.Inputs)
}

// Caller is one caller's credentials: the headers that identify it to the
// target (an Authorization, an API key, an account id), set on each of its
// requests over the operation's own headers.
//
//	callers:
//	  - headers: {Authorization: "Bearer test-token-a"}
//	  - headers: {Authorization: "Bearer test-token-b"}
//
// With two callers, key.scope sends the same key from both: a target that
// keys its store by the key alone answers the second caller from the
// first one's record.
type Caller struct {
	Headers map[string]string `yaml:"headers"`
}

// MaxCallers bounds callers: key.scope uses two.
const MaxCallers = 8

// Rules implements schema.Ruler.
func (Caller) Rules(r *schema.Rules) {
	r.Field("headers").Required(`the headers that identify this caller, e.g. {Authorization: "Bearer …"}`).
		Keys().Pattern(HeaderName, BadHeader)
	r.Field("headers").Items().Pattern(NoControl, BadControl)
}

// CheckCallers checks that callers differ.
func CheckCallers(c *Checker, cs []Caller) {
	seen := map[string]int{}
	for i, cl := range cs {
		if len(cl.Headers) == 0 {
			continue
		}
		id := fmt.Sprint(cl.Headers) // sorted by key
		if j, dup := seen[id]; dup {
			c.Index(i).Field("headers").Errorf("the same headers as callers[%d]: two callers must differ in what identifies them", j)
		}
		seen[id] = i
	}
}

// Limits bound the requests a run sends to an http target. A target with
// allow_remote: true gets DefaultRemoteRequests and
// DefaultRemotePerSecond unless it sets its own; a local one is unbounded
// unless it sets them.
//
//	allow_remote: true
//	limits: {requests: 600, per_second: 5}
type Limits struct {
	// Requests is the most requests a run sends the target: attempts,
	// burst copies and read-backs. A run that needs more stops, and the
	// target is reported untestable with the reason.
	Requests int `yaml:"requests,omitempty"`
	// PerSecond is the average rate of requests; a burst's copies still
	// go together.
	PerSecond float64 `yaml:"per_second,omitempty"`
}

// Rules implements schema.Ruler.
func (Limits) Rules(r *schema.Rules) {
	r.Field("requests").Min(0, schema.Sprintf("must not be negative, got %v"))
	r.Field("per_second").Min(0, schema.Sprintf("must not be negative, got %v"))
}
