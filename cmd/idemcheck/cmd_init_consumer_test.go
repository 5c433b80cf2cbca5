package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
)

// init --consumer writes a starter that run refuses, at the line of its
// TODO, until the payload is filled in; filled in, it loads.
func TestInitConsumer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(dir, "idemcheck.yaml")
	code, _, stderr := runCLI(t, ctx, "init", "--consumer", "--broker", "kafka", "--topic", "orders", "-o", out, "--", "./consumer", "--verbose")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	doc := string(b)
	assert.Contains(t, doc, "broker: {kind: kafka, topic: orders}")
	assert.Contains(t, doc, `command: ["./consumer", "--verbose"]`)

	code, _, stderr = runCLI(t, ctx, "run", "-c", out)
	assert.Equal(t, exitUsage, code)
	line := strings.Count(doc[:strings.Index(doc, "payload: null")], "\n") + 1
	assert.Contains(t, stderr, fmt.Sprintf("idemcheck.yaml:%d:18: targets[0].events[0].payload", line))
	assert.Contains(t, doc, "{{broker.ack_wait}}")

	filled := strings.Replace(doc, "payload: null", `payload: '{"amount":100,"description":"order {{marker}}"}'`, 1)
	filled = strings.Replace(filled, "name: TODO", "name: charge", 1)
	_, err = config.Parse("idemcheck.yaml", []byte(filled))
	assert.NoError(t, err)

	code, _, stderr = runCLI(t, ctx, "init", "--consumer", "--broker", "sqs")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--broker "sqs": expected one of nats, kafka, redis, rabbitmq`)
	code, _, stderr = runCLI(t, ctx, "init", "--consumer", "--topic", "a b")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--topic "a b"`)
}
