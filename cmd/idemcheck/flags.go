package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/reports"
)

// defaultConfig is the configuration file run and replay read when -c is
// not given.
const defaultConfig = "idemcheck.yaml"

// newFlagSet returns the flag set of the subcommand name. It prints
// nothing itself: a parse error is returned (and printed once, by run),
// and -h or --help is answered by flagError with the command's help.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseInterspersed parses the flags of a command that takes files
// (replay TRIALS.json, report RESULT.json…) wherever they are, before the
// files or after them (report RESULT.json --min-score 2, replay
// TRIALS.json --seed 3): Go's flag package alone stops at the first
// argument that is not a flag. A "--" ends the flags (a file named like
// one: report -- -odd.json). It returns the files, in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// errHelp is the answer to -h or --help once the help is printed: run
// exits 0 on it and prints nothing more.
var errHelp = &exitError{code: exitOK, err: flag.ErrHelp}

// flagError turns a parse error of fs into the command's answer: for -h
// or --help, the command's help on stdout and errHelp (exit 0); for
// anything else, a usage error (exit 2) whose hint names --help.
func flagError(fs *flag.FlagSet, err error, stdout io.Writer) error {
	if errors.Is(err, flag.ErrHelp) {
		if _, werr := io.WriteString(stdout, commandHelp(fs)); werr != nil {
			return harnessErr(werr, "")
		}
		return errHelp
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", fs.Name(), err), hint: fmt.Sprintf("run 'idemcheck %s --help' for its flags", fs.Name())}
}

// resolveConfig returns the configuration file to read: path when -c gave
// one, else idemcheck.yaml when the working directory has it; else a usage
// error that says what to do.
func resolveConfig(command, path string) (string, error) {
	if path != "" {
		return path, nil
	}
	if _, err := os.Stat(defaultConfig); err == nil {
		return defaultConfig, nil
	}
	wd, _ := os.Getwd()
	return "", &exitError{code: exitUsage,
		err:  fmt.Errorf("%s: no configuration: there is no %s in %s and no -c FILE was given", command, defaultConfig, wd),
		hint: "give one with -c FILE, or write a starter with idemcheck init -o " + defaultConfig + " and --openapi SPEC (an HTTP API), --mcp -- COMMAND or --mcp-url URL (an MCP server), or -- COMMAND (a command-line tool)"}
}

// commandHelp is a subcommand's help, in the style of idemcheck help: its
// entry of the usage text, then its flags, each with its description
// wrapped under it.
func commandHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage:\n")
	if entry := usageEntry(fs.Name()); entry != "" {
		b.WriteString(entry)
	} else {
		fmt.Fprintf(&b, "  idemcheck %s\n", fs.Name())
	}
	lines := flagLines(fs)
	if len(lines) > 0 {
		b.WriteString("\nFlags:\n")
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	fmt.Fprintf(&b, "\nExit codes and formats: idemcheck help\n")
	return b.String()
}

// usageEntry is the entry of the usage text for the command name: its
// synopsis line, the lines that continue it, and its description.
func usageEntry(name string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(usage, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(line, "  idemcheck ") {
			f := strings.Fields(trimmed)
			in = len(f) > 1 && f[1] == name
		} else if trimmed == "" || !strings.HasPrefix(line, "  ") {
			in = false
		}
		if in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// flagLines describes fs's flags, one entry each: a flag that shares
// its description with another (-c and --config), or says it is the "same
// as --config", joins that one's entry.
func flagLines(fs *flag.FlagSet) []string {
	type entry struct {
		names []string
		arg   string
		usage string
		def   string
	}
	var all []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { all = append(all, f) })
	var entries []*entry
	byUsage := map[string]*entry{}
	byName := map[string]*entry{}
	// Long names first, so that a one-letter alias finds its entry.
	sort.SliceStable(all, func(i, j int) bool { return len(all[i].Name) > 1 && len(all[j].Name) == 1 })
	for _, f := range all {
		arg, text := flag.UnquoteUsage(f)
		if alias, ok := strings.CutPrefix(text, "same as --"); ok {
			if e := byName[alias]; e != nil {
				e.names = append(e.names, f.Name)
				continue
			}
		}
		if e := byUsage[text]; e != nil && text != "" {
			e.names = append(e.names, f.Name)
			continue
		}
		e := &entry{names: []string{f.Name}, arg: argName(f, arg), usage: text}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "0s" {
			e.def = f.DefValue
		}
		entries = append(entries, e)
		byUsage[text] = e
		byName[f.Name] = e
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].names[0] < entries[j].names[0] })
	var out []string
	for _, e := range entries {
		sort.Slice(e.names, func(i, j int) bool { return len(e.names[i]) < len(e.names[j]) })
		var names []string
		for _, n := range e.names {
			if len(n) == 1 {
				names = append(names, "-"+n)
			} else {
				names = append(names, "--"+n)
			}
		}
		head := "  " + strings.Join(names, ", ")
		if e.arg != "" {
			head += " " + e.arg
		}
		text := e.usage
		if e.def != "" {
			if strings.HasSuffix(text, ")") {
				text = strings.TrimSuffix(text, ")") + "; default " + e.def + ")"
			} else {
				text += " (default " + e.def + ")"
			}
		}
		out = append(out, head+"\n"+reports.Wrap(text, "        ", "        ", 80))
	}
	return out
}

// argNames name the values of flags whose usage does not quote a name.
var argNames = map[string]string{
	"only": "CHECK,…", "shard": "I/N", "payments": "ADDR", "email": "ADDR", "smtp": "ADDR", "webhooks": "ADDR",
}

// argName names a flag's value in the help: the name its usage quotes
// (`FILE`), else one that says what it takes.
func argName(f *flag.Flag, unquoted string) string {
	if strings.Contains(f.Usage, "`") {
		return unquoted
	}
	if n, ok := argNames[f.Name]; ok {
		return n
	}
	switch unquoted {
	case "":
		return ""
	case "int", "uint":
		return "N"
	case "duration":
		return "DURATION"
	}
	return "VALUE"
}

// configUsage describes -c and --config.
const configUsage = "the configuration `FILE` (YAML; default: " + defaultConfig + " in the working directory)"

// plural says n things: "1 tool", "2 tools".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
