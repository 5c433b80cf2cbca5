package keys

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMetaField(t *testing.T) {
	for text, want := range map[string]string{
		`missing _meta["idempotency-key"]`:                     "idempotency-key",
		"send the key in _meta.idempotencyKey.":                "idempotencyKey",
		"requires _meta field io.example/key on every call":    "io.example/key",
		"the idempotency key goes in the call's _meta":         DefaultMetaField,
		"isError: idempotency key required in _meta key 'rid'": "rid",
	} {
		got, ok := MetaField(text)
		assert.True(t, ok, text)
		assert.Equal(t, want, got, text)
	}
	_, ok := MetaField("Idempotency-Key header is required")
	assert.False(t, ok)
}
