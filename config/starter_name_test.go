package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/config"
)

// A starter's target is named after the program, or after the script an
// interpreter runs, never after the interpreter.
func TestCommandName(t *testing.T) {
	for _, tc := range []struct {
		command []string
		want    string
	}{
		{[]string{"./ordertool", "--store", "jsonl"}, "ordertool"},
		{[]string{"python3", "invoice.py"}, "invoice"},
		{[]string{"/root/.pyenv/versions/3.11.7/bin/python3.11", "tools/invoice.py", "--db", "x"}, "invoice"},
		{[]string{"node", "server.js"}, "server"},
		{[]string{"python3", "-m", "invoice"}, "python3"},
		{[]string{"bash"}, "bash"},
		{nil, "tool"},
	} {
		assert.Equal(t, tc.want, config.CommandName(tc.command), "%q", tc.command)
	}
}
