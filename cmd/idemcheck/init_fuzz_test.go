package main

import (
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
)

// FuzzInitHelp: whatever a tool prints as its help, init finds names in it
// without a panic, and the configuration it writes is valid YAML.
func FuzzInitHelp(f *testing.F) {
	f.Add("Usage: tool <command>\n\nCommands:\n  create-order   charge a customer\n  get-order      read one\n  help\n")
	f.Add("COMMANDS\n\t\"quoted\": x\n  a:b  y\n  #c  z\n")
	f.Add("  \x1b[31mred\x1b[0m   colour\n  \xff\xfe  bad\n")
	f.Fuzz(func(t *testing.T, help string) {
		subs := config.Discover([]string{help, help})
		doc := config.Starter("tool", []string{"./tool", "--store", "x: y"}, subs, help)
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("init wrote invalid YAML (%v) for the help %q:\n%s", err, help, doc)
		}
	})
}
