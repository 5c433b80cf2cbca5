package process_test

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/idemcheck/idemcheck/targets/process"
)

// A target is started, crashed, restarted and stopped. Here the target is
// this test binary in its HTTP helper mode; a real harness would run, say,
// []string{"./shop", "-addr", addr}.
func ExampleStart() {
	ctx := context.Background()
	port, err := process.FreePort()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := process.Start(ctx, process.Spec{
		Name:    "shop",
		Command: []string{os.Args[0]},
		Env:     []string{helperEnv + "=http", "PORT=" + strconv.Itoa(port)},
		Ready:   process.Ready{URL: fmt.Sprintf("http://127.0.0.1:%d/healthz", port)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready")

	if err := p.Kill(); err != nil {
		fmt.Println(err)
	}
	<-p.Exited()
	fmt.Println("crashed")

	if err := p.Restart(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println("restarted")

	if err := p.Stop(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println("stopped")
	// Output:
	// ready
	// crashed
	// restarted
	// stopped
}

// A server that dies while starting is reported at once, with its exit
// status and its last words.
func ExampleStartError() {
	_, err := process.Start(context.Background(), process.Spec{
		Name:    "shop",
		Command: []string{os.Args[0]},
		Env:     []string{helperEnv + "=exit3"},
		Ready:   process.Ready{Addr: "127.0.0.1:1"},
	})
	fmt.Println(err)
	// Output:
	// process "shop": exited before it was ready (exit status 3); expected a TCP listener on 127.0.0.1:1 within 10s; last output:
	//     | helper exit3: fatal: config file shop.toml not found
	// hint: read its output above; run the command by hand with the same environment and directory to reproduce
}
