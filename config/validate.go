package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/keys"
)

// validator checks a decoded File. It reports against the positions the
// decoder recorded, and stays quiet about values that failed to decode (and
// everything inside them), which already have an error of their own.
type validator struct {
	file string
	pos  map[string]pos
	bad  map[string]bool
	errs Errors

	getenv func(string) (string, bool) // nil: os.LookupEnv
	env    map[string]string           // the {{env.NAME}} values read
}

func (v *validator) errorf(path, format string, args ...any) {
	if v.isBad(path) {
		return
	}
	at := lookupPos(v.pos, path)
	v.errs = append(v.errs, &Error{File: v.file, Line: at.line, Column: at.col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// isBad says whether path or a value containing it failed to decode.
func (v *validator) isBad(path string) bool {
	for p, ok := path, true; ok; p, ok = pathParent(p) {
		if v.bad[p] {
			return true
		}
	}
	return false
}

// written says whether the file has a value at path, even an empty one.
func (v *validator) written(path string) bool {
	_, ok := v.pos[path]
	return ok
}

// missing reports a required value that is absent or empty.
func (v *validator) missing(path, hint string) {
	if v.written(path) {
		v.errorf(path, "must not be empty: %s", hint)
	} else {
		v.errorf(path, "missing: %s", hint)
	}
}

var (
	targetName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	inputName  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

func (v *validator) validateFile(f *File) {
	switch {
	case f.Version == 0 && !v.written("version"):
		v.errorf("version", "missing: add `version: 1` at the top of the file")
	case f.Version != supportedVersion:
		v.errorf("version", "unsupported version %d: this idemcheck reads version %d", f.Version, supportedVersion)
	}
	if len(f.Targets) == 0 {
		v.missing("targets", "list at least one target to test, with its name, kind, url and operations")
	}
	fakes := map[string]bool{"payments": f.Fakes.Payments != nil, "email": f.Fakes.Email != nil, "webhooks": f.Fakes.Webhooks != nil}
	v.fakeAddresses(f)
	if w := f.Fakes.Webhooks; w != nil && w.KeyHeader != "" && !validHeaderName(w.KeyHeader) {
		v.errorf("fakes.webhooks.key_header", "invalid header name %q", w.KeyHeader)
	}
	first := map[string]int{}
	for i := range f.Targets {
		p := pathIndex("targets", i)
		v.target(p, &f.Targets[i], fakes)
		name := f.Targets[i].Name
		if name == "" {
			continue
		}
		if j, dup := first[name]; dup {
			v.errorf(pathField(p, "name"), "duplicate target name %q (already used by targets[%d] at line %d); target names must be unique", name, j, lookupPos(v.pos, pathField(pathIndex("targets", j), "name")).line)
		} else {
			first[name] = i
		}
	}
	v.checks(f.Checks)
	v.faults(f.Faults)
	v.retry(f.Retry)
	v.bursts(f.Bursts)
}

func (v *validator) target(p string, t *Target, fakes map[string]bool) {
	switch {
	case t.Name == "":
		v.missing(pathField(p, "name"), "give the target a name, such as \"shop\"")
	case !targetName.MatchString(t.Name):
		v.errorf(pathField(p, "name"), "invalid name %q: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", t.Name)
	}
	switch {
	case t.Kind == "":
		v.missing(pathField(p, "kind"), "say how to reach the target (supported kinds: "+strings.Join(kinds, ", ")+")")
	case !slices.Contains(kinds, t.Kind):
		v.errorf(pathField(p, "kind"), "unsupported kind %q (supported kinds: %s)", t.Kind, strings.Join(kinds, ", "))
	}
	v.kindFields(p, t.Kind)
	switch t.Kind {
	case KindCLI:
		v.cliTarget(p, t, fakes)
	case KindWebhook:
		v.webhookTarget(p, t, fakes)
	case KindContainer:
		v.containerTarget(p, t, fakes)
	case KindMCP:
		v.mcpTarget(p, t, fakes)
	case KindHTTP, "":
		v.url(p, t, fakes)
		v.replicas(p, t)
	}
	// What follows is checked for every kind that has the field; a field
	// of another kind was reported by kindFields. A missing or unknown
	// kind is checked as far as it goes, as http.
	if len(t.Callers) > 0 && fieldOf("callers", t.Kind) {
		v.callers(pathField(p, "callers"), t.Callers)
	}
	if t.Profile != "" && fieldOf("profile", t.Kind) {
		v.profile(pathField(p, "profile"), t.Profile)
	}
	if t.Start != nil && fieldOf("start", t.Kind) {
		v.start(pathField(p, "start"), t.Start, fakes)
	}
	if t.KeyHeader != "" && fieldOf("key_header", t.Kind) && !validHeaderName(t.KeyHeader) {
		v.errorf(pathField(p, "key_header"), "invalid header name %q", t.KeyHeader)
	}
	if _, err := keys.Parse(t.KeyFormat); err != nil {
		v.errorf(pathField(p, "key_format"), "%v (write uuid, token, or a template such as \"order-{{hex 16}}\")", err)
	}
	if fieldOf("effect", t.Kind) {
		v.locator(pathField(p, "effect"), t.Effect, false)
	}
	v.locator(pathField(p, "identity"), t.Identity, false)
	if t.DryRun != nil && fieldOf("dry_run", t.Kind) {
		v.dryRun(pathField(p, "dry_run"), t.DryRun)
	}
	if t.Timeout < 0 {
		v.errorf(pathField(p, "timeout"), "must not be negative, got %s", t.Timeout)
	}
	if t.TrialWorkers < 0 || t.TrialWorkers > MaxTrialWorkers {
		v.errorf(pathField(p, "trial_workers"), "%d trial workers is out of range; want 1 to %d", t.TrialWorkers, MaxTrialWorkers)
	}
	if fieldOf("observe", t.Kind) {
		v.observers(pathField(p, "observe"), t.Observe)
	}
	if t.Limits != nil && fieldOf("limits", t.Kind) {
		v.limits(pathField(p, "limits"), t.Limits)
	}
	if t.Kind == KindWebhook || t.Kind == KindMCP {
		return // events or tools instead of operations: checked above
	}
	cli := t.Kind == KindCLI
	ops := pathField(p, "operations")
	if len(t.Operations) == 0 {
		if cli {
			v.missing(ops, "list at least one operation (a command of the tool), with its name, mutating and args")
		} else {
			v.missing(ops, "list at least one operation the target offers, with its name, mutating, method and path")
		}
	}
	first := map[string]int{}
	for i := range t.Operations {
		op := &t.Operations[i]
		if cli {
			v.cliOperation(pathIndex(ops, i), op)
		} else {
			v.operation(pathIndex(ops, i), op)
		}
		if op.Name == "" {
			continue
		}
		if j, dup := first[op.Name]; dup {
			v.errorf(pathField(pathIndex(ops, i), "name"), "duplicate operation name %q (already used by operations[%d] at line %d); operation names must be unique within a target", op.Name, j, lookupPos(v.pos, pathField(pathIndex(ops, j), "name")).line)
		} else {
			first[op.Name] = i
		}
	}
}

// opNotFor reports each of fields that the file sets on the operation at
// p although they belong to the operations of another kind of target: kind
// is "an http" or "a cli".
func (v *validator) opNotFor(p, kind string, fields ...string) {
	for _, f := range fields {
		if path := pathField(p, f); v.written(path) {
			other := "a cli"
			if kind == "a cli" {
				other = "an http"
			}
			v.errorf(path, "%s is for %s target; this is %s target (see kind)", f, other, kind)
		}
	}
}

// url checks an http or webhook target's base URL: it must parse, and
// point at this machine unless the target allows remote hosts, because
// idemcheck sends duplicate and faulty requests on purpose. A container
// target's URL may be left out (DefaultContainerURL), and is always on
// loopback, where the container listens.
func (v *validator) url(p string, t *Target, fakes map[string]bool) {
	path := pathField(p, "url")
	container := t.Kind == KindContainer
	if t.URL == "" {
		if !container {
			v.missing(path, "the target's base URL, such as \"http://127.0.0.1:{{port}}\"")
		}
		return
	}
	usesPort := v.targetTemplate(path, v.envRefs(path, t.URL), fakes)
	if usesPort && t.Start == nil && !container {
		v.errorf(path, "uses {{port}}, but the target has no start command: the harness picks the port only for a target it starts; add start.command, or write the port the running target listens on")
	}
	// Parse with the placeholders filled in with stand-ins of the right shape.
	concrete := expand(t.URL, func(name string) string {
		switch {
		case name == phPort:
			return "1"
		case strings.HasPrefix(name, phFakePrefix):
			return "http://127.0.0.1:1"
		case strings.HasPrefix(name, phEnvPrefix):
			return v.env[strings.TrimPrefix(name, phEnvPrefix)]
		default:
			return "x"
		}
	})
	u, err := url.Parse(concrete)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		v.errorf(path, "invalid URL %q: %v", t.URL, err)
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		v.errorf(path, "URL %q must start with http:// or https://", t.URL)
		return
	}
	host := u.Hostname()
	if host == "" {
		v.errorf(path, "URL %q has no host; write one such as 127.0.0.1", t.URL)
		return
	}
	if container && !isLoopback(host) {
		v.errorf(path, "host %q is not a loopback address: a container target uses the host's network and listens on loopback; write 127.0.0.1 (the default url is %q)", host, DefaultContainerURL)
		return
	}
	if !t.Remote && !isLoopback(host) {
		v.errorf(path, "host %q is not a loopback address: idemcheck sends duplicate and faulty requests on purpose, so it only targets 127.0.0.1, ::1 or localhost unless the target sets allow_remote: true", host)
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

func (v *validator) start(p string, s *Start, fakes map[string]bool) {
	cmd := pathField(p, "command")
	if len(s.Command) == 0 {
		v.missing(cmd, "the program that starts the target and its arguments, as a list, such as [\"./server\", \"--port\", \"{{port}}\"]")
	}
	for i, arg := range s.Command {
		if i == 0 && strings.TrimSpace(arg) == "" {
			v.errorf(pathIndex(cmd, i), "the program name must not be empty")
		}
		v.targetTemplate(pathIndex(cmd, i), arg, fakes)
	}
	env := pathField(p, "env")
	for _, k := range sortedKeys(s.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.errorf(pathKey(env, k), "invalid environment variable name %q", k)
		}
		v.targetTemplate(pathKey(env, k), v.envRefs(pathKey(env, k), s.Env[k]), fakes)
	}
	v.targetTemplate(pathField(p, "dir"), s.Dir, fakes)
	ready := pathField(p, "ready")
	if s.Ready.Path != "" && !strings.HasPrefix(s.Ready.Path, "/") {
		v.errorf(pathField(ready, "path"), "must start with \"/\", got %q", s.Ready.Path)
	}
	if s.Ready.Timeout < 0 {
		v.errorf(pathField(ready, "timeout"), "must not be negative, got %s", s.Ready.Timeout)
	}
}

func (v *validator) operation(p string, op *Operation) {
	if op.Name == "" {
		v.missing(pathField(p, "name"), "give the operation a name, such as \"create-charge\"")
	}
	v.opNotFor(p, "an http", "args")
	if op.Mutating == nil {
		v.missing(pathField(p, "mutating"), "say whether the operation changes state (mutating: true) or only reads (mutating: false)")
	}
	method := pathField(p, "method")
	switch {
	case op.Method == "":
		v.missing(method, "one of "+strings.Join(methods, ", "))
	case !slices.Contains(methods, op.Method):
		hint := ""
		if slices.Contains(methods, strings.ToUpper(op.Method)) {
			hint = fmt.Sprintf("; write it in upper case: %q", strings.ToUpper(op.Method))
		}
		v.errorf(method, "unknown method %q (expected one of %s)%s", op.Method, strings.Join(methods, ", "), hint)
	}
	path := pathField(p, "path")
	switch {
	case op.Path == "":
		v.missing(path, "the request path under the target's URL, starting with \"/\"")
	case !strings.HasPrefix(op.Path, "/"):
		v.errorf(path, "must start with \"/\", got %q", op.Path)
	}
	marker := v.opTemplate(path, op.Path, op.Inputs)
	headers := pathField(p, "headers")
	for _, k := range sortedKeys(op.Headers) {
		if !validHeaderName(k) {
			v.errorf(pathKey(headers, k), "invalid header name %q", k)
		}
		marker = v.opTemplate(pathKey(headers, k), v.envRefs(pathKey(headers, k), op.Headers[k]), op.Inputs) || marker
	}
	body := pathField(p, "body")
	marker = v.opTemplate(body, op.Body, op.Inputs) || marker

	inputs := pathField(p, "inputs")
	for _, name := range sortedKeys(op.Inputs) {
		ip := pathKey(inputs, name)
		if !inputName.MatchString(name) {
			v.errorf(ip, "invalid input name %q: use letters, digits, '_' and '-', so that {{input.NAME}} can refer to it", name)
		}
		v.input(ip, op.Inputs[name])
	}
	if op.DryRun != nil {
		v.dryRun(pathField(p, "dry_run"), op.DryRun)
	}
	if op.Effect != nil {
		v.locator(pathField(p, "effect"), *op.Effect, true)
	}
	if op.Identity != nil {
		v.locator(pathField(p, "identity"), *op.Identity, true)
	}

	// Without a marker, the fakes cannot tell which request caused an
	// effect. Stay quiet if the strings that would hold it are broken.
	if marker || v.isBad(path) || v.isBad(headers) || v.isBad(body) {
		return
	}
	switch {
	case op.Mutating == nil:
	case *op.Mutating:
		v.errorf(p, "mutating operation %q does not use {{marker}}: put {{marker}} in its path, a header or the body. The harness gives every intent a unique marker, which the target passes on to its downstream calls (a payment description, an email subject), so that the fakes can attribute each side effect to the request that caused it", op.Name)
	default:
		v.errorf(p, "safe operation %q does not use {{marker}}: put {{marker}} in its path, a header or the body, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one)", op.Name)
	}
}

func (v *validator) input(p string, in Input) {
	var set []string
	if in.Int != nil {
		set = append(set, "int")
	}
	if in.Choice != nil {
		set = append(set, "choice")
	}
	if in.String != nil {
		set = append(set, "string")
	}
	switch {
	case len(set) == 0:
		v.errorf(p, "missing: say how to generate the input with one of int: [min, max], choice: [a, b] or string: {prefix: p-, length: 8}")
		return
	case len(set) > 1:
		v.errorf(p, "set only one of int, choice and string, not %s", strings.Join(set, " and "))
		return
	}
	switch {
	case in.Int != nil:
		ip := pathField(p, "int")
		if len(in.Int) != 2 {
			v.errorf(ip, "expected [min, max], got %d values", len(in.Int))
		} else if in.Int[0] > in.Int[1] {
			v.errorf(ip, "min %d is greater than max %d", in.Int[0], in.Int[1])
		}
	case in.Choice != nil:
		distinct := slices.Compact(slices.Sorted(slices.Values(in.Choice)))
		if len(distinct) < 2 {
			v.errorf(pathField(p, "choice"), "needs at least two different values, so that the harness can send the same key with a changed payload (key.mismatch)")
		}
	case in.String != nil:
		if n := in.String.Length; n < 0 || n > maxStringLength {
			v.errorf(pathField(pathField(p, "string"), "length"), "%d is out of range: use 1 to %d (default %d)", n, maxStringLength, DefaultStringLength)
		}
	}
}

// locator checks where a value is found in a reply. An operation's
// override must say where; a target's may be left empty for the default.
func (v *validator) locator(p string, l Locator, override bool) {
	switch {
	case l.JSON != "" && l.Header != "":
		v.errorf(p, "set json or header, not both")
	case override && l.JSON == "" && l.Header == "":
		v.errorf(p, "set json (a path in the JSON reply, such as \"data.id\") or header; or leave it out to use the target's")
	}
	if l.JSON != "" && slices.Contains(strings.Split(l.JSON, "."), "") {
		v.errorf(pathField(p, "json"), "invalid JSON path %q: write field names separated by dots, such as \"data.id\"", l.JSON)
	}
	if l.Header != "" && !validHeaderName(l.Header) {
		v.errorf(pathField(p, "header"), "invalid header name %q", l.Header)
	}
}

func (v *validator) dryRun(p string, d *DryRun) {
	switch {
	case d.Query == "" && d.Header == "":
		v.errorf(p, "set query (a query parameter, such as dry_run) or header (such as X-Dry-Run) to say how the target is asked for a dry run; or leave dry_run out if it has none")
	case d.Query != "" && d.Header != "":
		v.errorf(p, "set query or header, not both")
	}
	if strings.ContainsAny(d.Query, "=&?# ") {
		v.errorf(pathField(p, "query"), "invalid query parameter name %q: write the name only; the value goes in value", d.Query)
	}
	if d.Header != "" && !validHeaderName(d.Header) {
		v.errorf(pathField(p, "header"), "invalid header name %q", d.Header)
	}
}

func (v *validator) checks(c Checks) {
	if len(c.Only) > 0 && len(c.Skip) > 0 {
		v.errorf("checks", "set only or skip, not both: only runs just the listed checks, skip runs all but the listed ones")
	}
	for _, list := range []struct {
		name string
		ids  []string
	}{{"only", c.Only}, {"skip", c.Skip}} {
		for i, id := range list.ids {
			if !slices.Contains(KnownChecks, id) {
				v.errorf(pathIndex(pathField("checks", list.name), i), "unknown check %q (%sknown checks: %s)", id, didYouMean(id, KnownChecks), strings.Join(KnownChecks, ", "))
			}
		}
	}
}

func (v *validator) faults(faults []FaultSpec) {
	for i, f := range faults {
		p := pathIndex("faults", i)
		name := pathField(p, "name")
		switch {
		case f.Name == "":
			v.errorf(name, "missing: name the fault (known faults: %s)", strings.Join(KnownFaults, ", "))
		case !slices.Contains(KnownFaults, f.Name):
			if !v.written(name) {
				name = p // written as a plain name
			}
			v.errorf(name, "unknown fault %q (%sknown faults: %s)", f.Name, didYouMean(f.Name, KnownFaults), strings.Join(KnownFaults, ", "))
		}
	}
}

func (v *validator) retry(r Retry) {
	if n := r.MaxAttempts; n != 0 && (n < minMaxAttempts || n > maxMaxAttempts) {
		v.errorf("retry.max_attempts", "%d is out of range: use %d to %d (a retry needs at least a second attempt)", n, minMaxAttempts, maxMaxAttempts)
	}
	if r.StuckWait < 0 {
		v.errorf("retry.stuck_wait", "must not be negative, got %s", r.StuckWait)
	}
	if r.Burst < 0 || r.Burst == 1 || r.Burst > 200 {
		v.errorf("retry.burst", "must be from 2 to 200, got %d", r.Burst)
	}
	if r.Backoff < 0 {
		v.errorf("retry.backoff", "must not be negative, got %s", r.Backoff)
	}
	v.late(r)
}

// validHeaderName reports whether s is an HTTP field name (an RFC 9110
// token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
