package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
)

// A target's profile reaches the http adapter, which declares it as the
// target's Capabilities.Profile: the one ietf.draft applies to.
func TestProfileReachesTheTargetsCapabilities(t *testing.T) {
	const yaml = `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    profile: ietf-draft
    operations:
      - {name: create, mutating: true, method: POST, path: /orders, body: '{"m":"{{marker}}"}'}
`
	c, err := Parse("idemcheck.yaml", []byte(yaml))
	require.NoError(t, err)
	s := c.Targets[0].(*httpconfig.Section)
	cfg := s.Fields.Config(&s.Common, section.NewBuilder("", nil, nil, "targets[0]"))
	assert.Equal(t, harness.ProfileIETFDraft, cfg.Profile)
	tgt, err := httptarget.New(cfg)
	require.NoError(t, err)
	defer func() { assert.NoError(t, tgt.Close()) }()
	assert.Equal(t, harness.ProfileIETFDraft, tgt.Info().Caps().Profile)
}
