package process_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/targets/process"
)

// TestBaseEnv: of an environment, a target inherits the variables of
// process.Inherited (a prefix with "*" included) and those that
// IDEMCHECK_SAFE_ENV names, not the rest, nor IDEMCHECK_SAFE_ENV itself.
func TestBaseEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/root", "TMPDIR=/tmp/run", "LC_ALL=C.UTF-8", "LANG=C",
		"GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
		"GOCACHE=/cache", "MY_TOOL_HOME=/opt/tool", "MY_TOOL_MODE=fast", "PWD=/src", "=C:=C:\\",
		process.SafeEnvVar + "=GOCACHE, MY_TOOL_*",
	}
	assert.Equal(t, []string{
		"PATH=/usr/bin:/bin", "HOME=/root", "TMPDIR=/tmp/run", "LC_ALL=C.UTF-8", "LANG=C",
		"GOCACHE=/cache", "MY_TOOL_HOME=/opt/tool", "MY_TOOL_MODE=fast",
	}, process.BaseEnv(environ))

	assert.Equal(t, []string{"PATH=/usr/bin:/bin"}, process.BaseEnv([]string{"PATH=/usr/bin:/bin", "GOCACHE=/cache", process.SafeEnvVar + "=*"}),
		"a lone * names nothing")
}

// TestInheritedAreNotSecrets: every variable a target inherits is one the
// reports keep out of the secrets, and the variable that adds names is
// the same for both.
func TestInheritedAreNotSecrets(t *testing.T) {
	for _, n := range process.Inherited {
		assert.Contains(t, reports.SafeEnv, n)
	}
	assert.Equal(t, reports.SafeEnvVar, process.SafeEnvVar)
}
