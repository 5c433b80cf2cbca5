package config_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/examples/shop"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// A YAML configuration drives harness.Verify from Go exactly as
// idemcheck run does: Load, then Specs builds the fakes, the targets and
// the options the file sets. Here the target is the reference shop,
// running in this process and pointed at the payments fake's fixed
// address.
func ExampleFile_Specs() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, _ := os.MkdirTemp("", "idemcheck-example")
	defer os.RemoveAll(dir)
	port, err := process.FreePort()
	if err != nil {
		fmt.Println(err)
		return
	}
	ready := make(chan string, 1)
	go func() {
		_ = shop.Serve(ctx, shop.Options{Profile: "correct", StateDir: dir,
			PaymentsURL: fmt.Sprintf("http://127.0.0.1:%d", port)}, func(addr string) { ready <- addr })
	}()
	addr := <-ready

	path := filepath.Join(dir, "idemcheck.yaml")
	_ = os.WriteFile(path, []byte(fmt.Sprintf(`version: 1
fakes:
  payments: {listen: "127.0.0.1:%d"}
targets:
  - name: shop
    kind: http
    url: "http://%s"
    dry_run: {query: dry_run}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"cus_1","amount":{{input.amount}},"memo":"order {{marker}}"}'
        inputs: {amount: {int: [100, 999]}}
faults: [client-timeout, 503-before, lost-response, reset]
`, port, addr)), 0o644)

	file, err := config.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	specs, opts, err := file.Specs()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := harness.Verify(ctx, specs, append(opts, harness.WithSeed(1))...)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tr := range res.Targets {
		fmt.Printf("%s: score %d, %d findings\n", tr.Name, tr.Score.Level, len(tr.Findings))
	}
	// Output:
	// shop: score 3, 0 findings
}
