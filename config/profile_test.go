package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

func TestProfile(t *testing.T) {
	const cfg = `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    profile: %s
    operations:
      - {name: create, mutating: true, method: POST, path: /orders, body: '{"m":"{{marker}}"}'}
`
	c, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(cfg, "%s", "ietf-draft", 1)))
	require.NoError(t, err)
	assert.Equal(t, "ietf-draft", httpAt(t, c, 0).Profile)

	_, err = config.Parse("idemcheck.yaml", []byte(strings.Replace(cfg, "%s", "rfc9999", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `idemcheck.yaml:6:14: targets[0].profile: unknown profile "rfc9999" (known profiles: ietf-draft)`)

	cli := "version: 1\ntargets:\n  - name: tool\n    kind: cli\n    command: [./tool]\n    profile: ietf-draft\n    operations:\n      - {name: create, mutating: true, args: [\"{{marker}}\"]}\n"
	_, err = config.Parse("idemcheck.yaml", []byte(cli))
	require.Error(t, err, "a cli target has no HTTP status codes to hold to the draft")
	assert.Contains(t, err.Error(), "targets[0].profile")
}
