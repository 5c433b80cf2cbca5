package reports_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/reports"
)

// TestEnvSecrets: every value of idemcheck's environment is a secret, but
// those of the allow-list and of IDEMCHECK_SAFE_ENV, and those too short
// or too common to be one; a target that prints one leaves nothing of it
// in a report.
func TestEnvSecrets(t *testing.T) {
	environ := []string{
		"CI_DEPLOY_TOKEN=q8Zr2LmXv5Tn", // a secret of no known shape
		"DATABASE_PASSWORD=correct horse battery",
		"MY_CLUSTER=cluster-eu-7f3a",
		"PATH=/usr/local/bin:/usr/bin",
		"HOME=/home/ann",
		"LANG=en_US.UTF-8",
		"LC_ALL=en_US.UTF-8",
		"XDG_RUNTIME_DIR=/run/user/1000",
		"TERM=xterm-256color",
		"DOCKER_HOST=unix:///run/user/1000/docker.sock",
		"CI=true",
		"BUILD_NUMBER=20260114.3",
		"GOROOT=/usr/local/go",
		"DEPLOY_ENV=production",
		"EMPTY=",
		"NOT_A_PAIR",
		"APP_REGION=somewhere-far-1",
		"IDEMCHECK_SAFE_ENV=APP_*, OTHER",
	}
	got := reports.EnvSecrets(environ)
	assert.ElementsMatch(t, []string{"q8Zr2LmXv5Tn", "correct horse battery", "cluster-eu-7f3a"}, got)

	printed := "deploy q8Zr2LmXv5Tn, pw correct horse battery, region somewhere-far-1, path /usr/local/go"
	assert.Equal(t, "deploy [redacted], pw [redacted], region somewhere-far-1, path /usr/local/go", reports.RedactText(printed, got))
}
