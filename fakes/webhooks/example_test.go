package webhooks_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/idemcheck/idemcheck/fakes/webhooks"
)

// A target sends its outgoing webhook to the sink; the ledger counts it.
func Example() {
	sink, err := webhooks.New(webhooks.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sink.Close()

	resp, err := http.Post(sink.URL()+"/hooks/orders", "application/json",
		strings.NewReader(`{"type":"order.created","memo":"idem-00000000000000aa"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	for _, e := range sink.Ledger().ByMarker("idem-00000000000000aa") {
		fmt.Println(resp.StatusCode, e.Fake, e.Kind, e.ID, e.Detail["path"])
	}
	// Output:
	// 200 webhooks delivery dlv_000001 /hooks/orders
}
