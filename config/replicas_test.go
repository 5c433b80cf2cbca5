package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

func TestReplicas(t *testing.T) {
	// Rows: each way replicas can be wrong names the field and says why;
	// a good one loads and reaches the spec.
	const good = `version: 1
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:{{port}}
    replicas: %s
    start:
      command: [./shop, --listen, "127.0.0.1:{{port}}", --instance, "{{replica}}"]
    operations:
      - {name: create, mutating: true, method: POST, path: /orders, body: '{"m":"{{marker}}"}'}
`
	rows := []struct {
		why, yaml, want string
	}{
		{"too many", strings.Replace(good, "%s", "99", 1), "targets[0].replicas: 99 replicas is out of range; want 1 to 8"},
		{"negative", strings.Replace(good, "%s", "-1", 1), "out of range"},
		{"fixed port", strings.Replace(strings.Replace(good, "%s", "2", 1), "url: http://127.0.0.1:{{port}}", "url: http://127.0.0.1:8080", 1), "replicas need {{port}} in url"},
		{"not started", "version: 1\ntargets:\n  - name: shop\n    kind: http\n    url: http://127.0.0.1:8080\n    replicas: 2\n    operations:\n      - {name: create, mutating: true, method: POST, path: /orders, body: '{\"m\":\"{{marker}}\"}'}\n", "replicas need a start command"},
		{"cli", "version: 1\ntargets:\n  - name: tool\n    kind: cli\n    command: [./tool]\n    replicas: 2\n    operations:\n      - {name: create, mutating: true, args: [\"{{marker}}\"]}\n", "replicas"},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(row.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
			assert.Contains(t, err.Error(), "idemcheck.yaml:")
		})
	}
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(good, "%s", "2", 1)))
	require.NoError(t, err)
	assert.Equal(t, 2, httpAt(t, f, 0).Replicas)
}
