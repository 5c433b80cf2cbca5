package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/config"
)

func TestDiscoverSubcommands(t *testing.T) {
	// Rows: help texts as real tools print them.
	rows := []struct {
		why  string
		help string
		want []string
	}{
		{"a Commands: section; help is not an operation",
			"Usage: t COMMAND\n\nCommands:\n  create-order   charge\n  get-order      show\n  help           this\n\nFlags:\n  --store S\n",
			[]string{"create-order", "get-order"}},
		{"cobra's Available Commands, and a blank line after the heading",
			"Usage:\n  gh [command]\n\nAvailable Commands:\n\n  completion  Generate the autocompletion script\n  issue       Manage issues\n\nFlags:\n  -h, --help   help\n",
			[]string{"completion", "issue"}},
		{"SUBCOMMANDS in capitals, names with colons",
			"SUBCOMMANDS\n    db:migrate    run migrations\n    db:seed       seed\n",
			[]string{"db:migrate", "db:seed"}},
		{"no section: indented names followed by a description",
			"usage: tool <cmd>\n\n   push     send changes\n   pull     fetch changes\n  --verbose  more output\n",
			[]string{"push", "pull"}},
		{"nothing that looks like a command",
			"usage: tool [-v] FILE\n  -v    verbose\n",
			nil},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			assert.Equal(t, row.want, config.Discover([]string{row.help}))
		})
	}
}
