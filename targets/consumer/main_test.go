package consumer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/idemcheck/idemcheck/examples/consumers"
	"github.com/idemcheck/idemcheck/internal/testpar"
	_ "github.com/idemcheck/idemcheck/targets/consumer/brokerset" // the brokers consumer targets start
)

// The test binary runs the reference consumer when childEnv is set, with
// the JSON array of its arguments in childArgsEnv.
const (
	childEnv     = "IDEMCHECK_TEST_CONSUMER"
	childArgsEnv = "IDEMCHECK_TEST_CONSUMER_ARGS"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "idle": // starts, subscribes to nothing, waits to be stopped
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		<-ctx.Done()
		stop()
		os.Exit(0)
	case "exit": // dies as soon as it started
		fmt.Fprintln(os.Stderr, "consumer: cannot parse the configuration")
		os.Exit(3)
	}
	if os.Getenv(childEnv) == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv(childArgsEnv)), &args); err != nil {
			fmt.Fprintln(os.Stderr, "bad", childArgsEnv, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		code := consumers.Main(ctx, args, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// Each test waits on its broker most of its time (redelivery after
	// the ack deadline, the quiet period that ends an attempt): more of
	// them at once than one per processor.
	testpar.AtLeast(8)
	os.Exit(m.Run())
}
