package config

import (
	"regexp"
	"strings"
)

// argName is a tool argument or _meta field name: what JSON allows, kept
// to printable names without spaces; dots reach into nested objects.
var argName = regexp.MustCompile(`^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$`)

// mcpTarget checks an mcp target: exactly one of command (stdio) and url
// (streamable HTTP), where the key and the dry-run flag go, and the tools.
func (v *validator) mcpTarget(p string, t *Target, fakes map[string]bool) {
	cmd := pathField(p, "command")
	switch {
	case len(t.Command) == 0 && t.URL == "":
		v.missing(cmd, "the server: command (a stdio server idemcheck starts, such as [\"./mcpserver\"]) or url (a streamable HTTP endpoint, such as \"http://127.0.0.1:{{port}}/mcp\")")
	case len(t.Command) > 0 && t.URL != "":
		v.errorf(cmd, "set command (a stdio server) or url (a streamable HTTP server), not both")
	}
	for i, arg := range t.Command {
		if i == 0 && strings.TrimSpace(arg) == "" {
			v.errorf(pathIndex(cmd, i), "the program name must not be empty")
		}
		v.targetTemplate(pathIndex(cmd, i), arg, fakes)
	}
	if len(t.Command) > 0 && t.Start != nil {
		v.errorf(pathField(p, "start"), "a stdio server is started from command, one process per session; start is for a streamable HTTP server (url)")
	}
	if t.URL != "" {
		v.url(p, t, fakes)
	}
	env := pathField(p, "env")
	for _, k := range sortedKeys(t.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.errorf(pathKey(env, k), "invalid environment variable name %q", k)
		}
		v.targetTemplate(pathKey(env, k), v.envRefs(pathKey(env, k), t.Env[k]), fakes)
	}
	if t.URL != "" && len(t.Env) > 0 {
		v.errorf(env, "env is for a stdio server (command); a streamable HTTP server's environment goes under start: {env: …}")
	}
	v.targetTemplate(pathField(p, "dir"), t.Dir, fakes)
	v.placements(p, t.KeyArgument, t.KeyMeta, t.DryRunArgument)
	if t.Effect.Header != "" || t.Identity.Header != "" {
		f := "effect"
		if t.Effect.Header == "" {
			f = "identity"
		}
		v.errorf(pathField(pathField(p, f), "header"), "a tool result has no headers: use json, a path in its structuredContent (or its text, parsed as JSON), such as \"data.id\"")
	}
	tools := pathField(p, "tools")
	first := map[string]int{}
	for i := range t.Tools {
		tp := pathIndex(tools, i)
		tool := &t.Tools[i]
		switch {
		case tool.Name == "":
			v.missing(pathField(tp, "name"), "the tool's name, as tools/list gives it")
		default:
			if j, dup := first[tool.Name]; dup {
				v.errorf(pathField(tp, "name"), "duplicate tool %q (already listed as tools[%d] at line %d)", tool.Name, j, lookupPos(v.pos, pathField(pathIndex(tools, j), "name")).line)
			} else {
				first[tool.Name] = i
			}
		}
		if tool.Marker != "" && !argName.MatchString(tool.Marker) {
			v.errorf(pathField(tp, "marker"), "invalid argument name %q: name the string argument {{marker}} goes into, such as \"description\"", tool.Marker)
		}
		v.placements(tp, tool.KeyArgument, tool.KeyMeta, tool.DryRunArgument)
		inputs := pathField(tp, "inputs")
		for _, name := range sortedKeys(tool.Inputs) {
			if !argName.MatchString(name) {
				v.errorf(pathKey(inputs, name), "invalid argument name %q: use the schema's property name, dotted for a nested object's (address.city)", name)
			}
			v.input(pathKey(inputs, name), tool.Inputs[name])
		}
		args := pathField(tp, "arguments")
		for _, name := range sortedKeys(tool.Arguments) {
			if !argName.MatchString(name) {
				v.errorf(pathKey(args, name), "invalid argument name %q", name)
			}
			if s, ok := tool.Arguments[name].(string); ok {
				v.intentTemplate(pathKey(args, name), s, tool.Inputs)
			}
		}
		for _, l := range []struct {
			f string
			l *Locator
		}{{"effect", tool.Effect}, {"identity", tool.Identity}} {
			if l.l == nil {
				continue
			}
			v.locator(pathField(tp, l.f), *l.l, true)
			if l.l.Header != "" {
				v.errorf(pathField(pathField(tp, l.f), "header"), "a tool result has no headers: use json")
			}
		}
	}
}

// placements checks where the key and the dry-run flag go.
func (v *validator) placements(p string, keyArg *string, keyMeta string, dryRun *string) {
	if keyArg != nil && keyMeta != "" {
		v.errorf(pathField(p, "key_meta"), "set key_argument (the key is a tool argument) or key_meta (a _meta field), not both")
	}
	if keyArg != nil && *keyArg != "" && !argName.MatchString(*keyArg) {
		v.errorf(pathField(p, "key_argument"), "invalid argument name %q, such as \"idempotency_key\"; \"\" means the tools take no key", *keyArg)
	}
	if keyMeta != "" && !argName.MatchString(keyMeta) {
		v.errorf(pathField(p, "key_meta"), "invalid _meta field name %q, such as \"idempotency-key\"", keyMeta)
	}
	if dryRun != nil && *dryRun != "" && !argName.MatchString(*dryRun) {
		v.errorf(pathField(p, "dry_run_argument"), "invalid argument name %q, such as \"dry_run\"; \"\" means none", *dryRun)
	}
}
