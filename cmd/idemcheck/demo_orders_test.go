package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// TestDemoFallsBackToSQLite: without PostgreSQL the demo's orders service
// keeps its orders in SQLite, and the demo says so.
func TestDemoFallsBackToSQLite(t *testing.T) {
	t.Setenv(pgserver.BinEnv, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	db, stop := demoOrdersDB(ctx, false, &stderr)
	defer stop()
	assert.Equal(t, "sqlite", db.Kind)
	assert.Contains(t, stderr.String(), "PostgreSQL is not installed")
	assert.Contains(t, stderr.String(), "the orders service keeps its orders in SQLite instead")
}
