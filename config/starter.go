package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// This file writes the starter configuration of idemcheck init from what
// a tool's help says.

var (
	// sectionRE matches the heading of a list of subcommands: "Commands:",
	// "Available Commands:", "SUBCOMMANDS", "Commands".
	sectionRE = lazyregexp.New(`(?i)^\s*(available\s+|sub)?(sub)?commands\s*:?\s*$`)
	// entryRE matches an indented line that starts with a command name.
	entryRE = lazyregexp.New(`^\s+([A-Za-z][A-Za-z0-9_.:-]*)(\s|,|$)`)
	// describedRE matches an indented name followed by a gap and words:
	// "  create-order   charge a customer".
	describedRE = lazyregexp.New(`^\s{1,8}([a-z][a-z0-9_.:-]*)(\s{2,}|\t)\S`)
)

// notOperations are names a help lists that are not the tool's work.
var notOperations = map[string]bool{"help": true}

// Discover finds the subcommands listed in help texts: the lines of a
// "Commands:" section, else the first word of indented lines that look
// like "name   description". Names keep their first order; help is left
// out.
func Discover(helps []string) []string {
	var found []string
	add := func(name string) {
		if !notOperations[name] && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	for _, h := range helps {
		for _, name := range sectionEntries(h) {
			add(name)
		}
	}
	if len(found) > 0 {
		return found
	}
	for _, h := range helps {
		for _, line := range strings.Split(h, "\n") {
			if m := describedRE.FindStringSubmatch(line); m != nil {
				add(m[1])
			}
		}
	}
	return found
}

// sectionEntries returns the first word of each line of every commands
// section of help.
func sectionEntries(help string) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(help, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if !sectionRE.MatchString(lines[i]) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++ // a blank line right after the heading
		}
		for ; j < len(lines); j++ {
			line := lines[j]
			if strings.TrimSpace(line) == "" || (line[0] != ' ' && line[0] != '\t') {
				break
			}
			if m := entryRE.FindStringSubmatch(line); m != nil {
				out = append(out, m[1])
			}
		}
		i = j
	}
	return out
}

var (
	flagRE = lazyregexp.New(`(?:^|[\s\[,(|])(--?[A-Za-z][A-Za-z0-9_-]*)`)
	envRE  = lazyregexp.New(`\$\{?([A-Z][A-Z0-9_]{2,})`)
)

// flagLike returns the first flag in text whose name contains one of
// words, preferring the double-dash form, or "".
func flagLike(text string, words ...string) string {
	best := ""
	for _, m := range flagRE.FindAllStringSubmatch(text, -1) {
		f := m[1]
		low := strings.ToLower(strings.TrimLeft(f, "-"))
		for _, w := range words {
			if strings.Contains(low, w) && (best == "" || (strings.HasPrefix(f, "--") && !strings.HasPrefix(best, "--"))) {
				best = f
			}
		}
	}
	return best
}

// envGuess says what a variable the help mentions probably wants, or "".
func envGuess(name string) string {
	switch n := strings.ToUpper(name); {
	case strings.Contains(n, "STATE") || strings.HasSuffix(n, "_DIR") || strings.Contains(n, "DATA_DIR"):
		return "{{state_dir}}"
	case strings.Contains(n, "PAYMENT") || strings.Contains(n, "STRIPE"):
		return "{{fakes.payments.url}}"
	case strings.Contains(n, "EMAIL") || strings.Contains(n, "MAIL") || strings.Contains(n, "SENDGRID"):
		return "{{fakes.email.url}}"
	}
	return ""
}

var nameRE = lazyregexp.New(`[^a-z0-9._-]+`)

// CommandName is TargetName for a command line: the program's name, or,
// when the program is an interpreter (python3, node, bash …) given a
// script, the script's without its extension.
func CommandName(command []string) string {
	if len(command) == 0 {
		return TargetName("")
	}
	if interpreter.MatchString(filepath.Base(command[0])) && len(command) > 1 && !strings.HasPrefix(command[1], "-") {
		script := filepath.Base(command[1])
		return TargetName(strings.TrimSuffix(script, filepath.Ext(script)))
	}
	return TargetName(command[0])
}

// interpreter matches the programs that run a script named after them.
var interpreter = lazyregexp.New(`^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|bash|sh|dash|zsh|lua|Rscript|tclsh)$`)

// TargetName makes a valid target name from a command's path.
func TargetName(cmd string) string {
	n := nameRE.ReplaceAllString(strings.ToLower(filepath.Base(cmd)), "-")
	n = strings.TrimLeft(n, "._-")
	if n == "" {
		return "tool"
	}
	return n
}

// plainRE matches a value YAML reads as the same plain string.
var plainRE = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$|^--?[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// yamlPlain writes s as a YAML scalar: as is when that reads back as s,
// else double-quoted (Go's escapes are YAML's).
func yamlPlain(s string) string {
	if plainRE.MatchString(s) && s != "null" && s != "true" && s != "false" {
		return s
	}
	return strconv.Quote(s)
}

// oneLine makes s safe in a YAML comment: no line break or other control.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

// yamlFlow writes ss as a YAML flow sequence of double-quoted strings.
func yamlFlow(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Starter writes a starter configuration for the command-line tool
// command, whose help texts list subs as its subcommands: every field explained, the
// guesses marked as guesses, and a TODO wherever only the user knows.
func Starter(name string, command, subs []string, help string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# yaml-language-server: $schema=%s", SchemaURL)
	p("# idemcheck configuration for %s", oneLine(strings.Join(command, " ")))
	p("# written by `idemcheck init` from the tool's help. Fill in every TODO")
	p("# (idemcheck run reports each one with its line until it is done), then:")
	p("#   idemcheck run -c THIS_FILE")
	p("version: 1")
	p("")
	p("# The fakes stand for the services the tool calls: each records the side")
	p("# effects it sees, so that idemcheck can count them. Point the tool at them")
	p("# through env below: {{fakes.payments.url}}, {{fakes.email.url}}.")
	p("fakes:")
	p("  payments: {}   # a Stripe-like payments API (POST /v1/charges)")
	p("  email: {}      # an email API (SendGrid-like POST /v3/mail/send) and SMTP")
	p("")
	p("targets:")
	p("  - name: %s", yamlPlain(name))
	p("    kind: cli")
	p("    # command: what every call runs. An operation's args are appended, then")
	p("    # the key flag and the key when the call has one, then the dry-run flag")
	p("    # for a dry run. The tool runs once per call, in its own process group.")
	p("    command: %s", yamlFlow(command))
	vars := envVars(help)
	p("    # env: variables for the tool. {{state_dir}} is a fresh directory per")
	p("    # run, kept across the calls of the run; {{fakes.NAME.url}} is a fake's address.")
	if len(vars) == 0 {
		p("    env: {}   # e.g. PAYMENTS_URL: \"{{fakes.payments.url}}\", STATE_DIR: \"{{state_dir}}\"")
	} else {
		p("    env:")
		for _, v := range vars {
			if g := envGuess(v); g != "" {
				p("      %s: %q   # guessed from the help's $%s: check it", v, g, v)
			} else {
				p("      # %s: \"\"   # the help mentions $%s", v, v)
			}
		}
	}
	p("    # dir: .   # the working directory (default: where idemcheck runs)")
	if f := flagLike(help, "idempotency", "request-id", "request_id", "dedup"); f != "" {
		p("    key_flag: %s   # the flag that carries the idempotency key (found in the help)", yamlPlain(f))
	} else {
		p("    key_flag: --idempotency-key   # TODO: the help names no key flag; write the tool's, or keep this to see what happens without one")
	}
	if f := flagLike(help, "dry-run", "dry_run", "dryrun"); f != "" {
		p("    dry_run_flag: %s   # asks for a dry run (found in the help)", yamlPlain(f))
	} else {
		p("    dry_run_flag: \"\"   # the help names no dry-run flag; write the tool's if it has one")
	}
	p("    # The reply is read as JSON on stdout: {\"ok\":…, \"effect\":…, \"data\":…}.")
	p("    # effect: {json: effect}      # where the reply says what it did (default)")
	p("    # identity: {json: data.id}   # where it names the result, to compare replays (default)")
	p("    # retry_exit_codes: [75]      # exit codes that mean \"temporary failure, retry\" (default)")
	p("    timeout: 10s   # per call; a call still running then is killed")
	p("    operations:")
	p("      # One per command. For each: mutating says whether it changes anything")
	p("      # (true) or only reads (false); args are the command and its flags, with")
	p("      # {{marker}} in a value the tool passes on to the services it calls (a")
	p("      # description, a memo), so that each side effect can be traced to its")
	p("      # call, and {{input.NAME}} for values idemcheck generates (declared")
	p("      # under inputs: {NAME: {int: [1, 100]}}, {choice: [a, b]} or {string: {prefix: x_}}).")
	if len(subs) == 0 {
		subs = []string{"TODO"}
	}
	for _, s := range subs {
		p("      - name: %s", yamlPlain(s))
		p("        mutating: null   # TODO: true or false")
		p("        args: %s   # TODO: add its flags, with {{marker}} in one value (see: %s %s --help)", yamlFlow([]string{s}), oneLine(strings.Join(command, " ")), oneLine(s))
	}
	return b.String()
}

// envVars returns the environment variables a help text mentions
// ($NAME), sorted, without duplicates.
func envVars(help string) []string {
	var out []string
	for _, m := range envRE.FindAllStringSubmatch(help, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}
