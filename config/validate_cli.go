package config

import (
	"strings"
)

// cliTarget checks what a cli target needs: a command to run, and no
// field of an http target.
func (v *validator) cliTarget(p string, t *Target, fakes map[string]bool) {
	cmd := pathField(p, "command")
	if len(t.Command) == 0 {
		v.missing(cmd, "the tool's program and leading arguments, as a list, such as [\"./ordertool\", \"--store\", \"jsonl\"]; every call appends an operation's args")
	}
	for i, arg := range t.Command {
		if i == 0 && strings.TrimSpace(arg) == "" {
			v.errorf(pathIndex(cmd, i), "the program name must not be empty")
		}
		v.targetTemplate(pathIndex(cmd, i), arg, fakes)
	}
	env := pathField(p, "env")
	for _, k := range sortedKeys(t.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.errorf(pathKey(env, k), "invalid environment variable name %q", k)
		}
		v.targetTemplate(pathKey(env, k), v.envRefs(pathKey(env, k), t.Env[k]), fakes)
	}
	v.targetTemplate(pathField(p, "dir"), t.Dir, fakes)
	if t.KeyFlag != "" {
		v.flag(pathField(p, "key_flag"), t.KeyFlag, "--idempotency-key")
	}
	if t.DryRunFlag != nil && *t.DryRunFlag != "" {
		v.flag(pathField(p, "dry_run_flag"), *t.DryRunFlag, "--dry-run")
	}
	if codes := pathField(p, "retry_exit_codes"); v.written(codes) && len(t.RetryExitCodes) == 0 {
		v.errorf(codes, "must not be empty: list the exit codes that mean \"temporary failure, retry with the same key\", or leave it out for the default %v", DefaultRetryExitCodes)
	}
	for i, c := range t.RetryExitCodes {
		if c < 1 || c > 255 {
			v.errorf(pathIndex(pathField(p, "retry_exit_codes"), i), "%d is not an exit code that means failure: use 1 to 255 (75 is EX_TEMPFAIL)", c)
		}
	}
	for _, l := range []struct {
		field string
		loc   Locator
	}{{"effect", t.Effect}, {"identity", t.Identity}} {
		if l.loc.Header != "" {
			v.errorf(pathField(pathField(p, l.field), "header"), "a command's reply has no headers: use json, a path in the JSON it prints on stdout, such as \"data.id\"")
		}
	}
}

// flag checks a flag name the adapter appends to the command line.
func (v *validator) flag(path, flag, example string) {
	switch {
	case !strings.HasPrefix(flag, "-"):
		v.errorf(path, "%q is not a flag: write it as the tool expects it, with its dashes, such as %q", flag, example)
	case strings.ContainsAny(flag, " \t\n="):
		v.errorf(path, "invalid flag %q: write the flag's name only; the adapter passes the value as the next argument", flag)
	}
}

// cliOperation checks one command of a cli target: its args instead of an
// http operation's method and path.
func (v *validator) cliOperation(p string, op *Operation) {
	if op.Name == "" {
		v.missing(pathField(p, "name"), "give the operation a name, such as \"create-order\"")
	}
	if op.Mutating == nil {
		v.missing(pathField(p, "mutating"), "say whether the command changes state (mutating: true) or only reads (mutating: false)")
	}
	v.opNotFor(p, "a cli", "method", "path", "headers", "body", "dry_run")
	for _, f := range []string{"effect", "identity"} {
		if v.written(pathField(p, f)) {
			v.errorf(pathField(p, f), "set %s on the target: a cli operation cannot override it", f)
		}
	}
	args := pathField(p, "args")
	if len(op.Args) == 0 {
		v.missing(args, "the command's arguments after the target's command, as a list, such as [create-order, --memo, \"order {{marker}}\"]")
	}
	marker := false
	for i, a := range op.Args {
		marker = v.opTemplate(pathIndex(args, i), a, op.Inputs) || marker
	}
	inputs := pathField(p, "inputs")
	for _, name := range sortedKeys(op.Inputs) {
		ip := pathKey(inputs, name)
		if !inputName.MatchString(name) {
			v.errorf(ip, "invalid input name %q: use letters, digits, '_' and '-', so that {{input.NAME}} can refer to it", name)
		}
		v.input(ip, op.Inputs[name])
	}
	if marker || v.isBad(args) || len(op.Args) == 0 {
		return
	}
	switch {
	case op.Mutating == nil:
	case *op.Mutating:
		v.errorf(p, "mutating operation %q does not use {{marker}}: put {{marker}} in one of its args, where the tool passes it on to its downstream calls (a payment's description, an email's text), so that the fakes can attribute each side effect to the call that caused it", op.Name)
	default:
		v.errorf(p, "safe operation %q does not use {{marker}}: put {{marker}} in one of its args, so that a side effect it causes by mistake can be attributed to it (that is how safe.readonly finds one)", op.Name)
	}
}
