package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

func TestCallers(t *testing.T) {
	good := burstsBase + `    callers:
      - headers: {Authorization: "Bearer a"}
      - headers: {Authorization: "Bearer b"}
`
	f, err := config.Parse("idemcheck.yaml", []byte(good))
	require.NoError(t, err)
	require.Len(t, httpAt(t, f, 0).Callers, 2)
	assert.Equal(t, "Bearer b", httpAt(t, f, 0).Callers[1].Headers["Authorization"])

	// Rows: each way callers can be wrong, reported at its line and field.
	rows := []struct{ why, yaml, want string }{
		{"one caller", "    callers:\n      - headers: {Authorization: a}\n", "targets[0].callers: 1 callers: declare 2 to 8"},
		{"no headers", "    callers:\n      - headers: {Authorization: a}\n      - {}\n", "targets[0].callers[1].headers: missing"},
		{"the same twice", "    callers:\n      - headers: {Authorization: a}\n      - headers: {Authorization: a}\n", "the same headers as callers[0]"},
		{"bad header", "    callers:\n      - headers: {\"Bad Header\": a}\n      - headers: {Authorization: b}\n", "invalid header name"},
	}
	for _, row := range rows {
		t.Run(row.why, func(t *testing.T) {
			_, err := config.Parse("idemcheck.yaml", []byte(burstsBase+row.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), row.want)
			assert.Contains(t, err.Error(), "idemcheck.yaml:")
		})
	}
}
