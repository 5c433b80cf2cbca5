package container_test

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/examples"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/container"
)

// A shop built as a static binary (CGO_ENABLED=0 GOOS=linux go build -o
// ./shop ./examples/http/correct) is put in an image FROM scratch and scored
// in a container. The example is compiled but not run (it has no Output),
// because it needs a Docker engine; TestShopInContainers runs the same.
func Example() {
	ctx := context.Background()
	pool, err := container.Connect(ctx, "") // DOCKER_HOST, else the local socket
	if err != nil {
		fmt.Println(err) // Docker is not reachable at …
		return
	}
	img := container.Image{Name: "shop", Tag: "correct", Binary: "./shop"}
	if err := container.Build(ctx, pool, img); err != nil {
		fmt.Println(err)
		return
	}
	spec := container.Spec(examples.ShopConfig("shop", true), container.Launch{
		Image:     img.Ref(),
		Cmd:       []string{"--listen", "127.0.0.1:{{port}}", "--payments", "{{fakes.payments.url}}", "--state", "{{state_dir}}"},
		ReadyPath: "/healthz",
	}, examples.PaymentsFake)
	res, err := harness.Verify(ctx, []harness.Spec{spec})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Targets[0].Kind, res.Targets[0].Score.Level)
}
