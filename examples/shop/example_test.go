package shop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idemcheck/idemcheck/examples/shop"
)

// Serve a shop with the correct profile against a one-line payments stand-in
// and send the same order twice with one key: one charge, then a replay.
func ExampleServe() {
	charges := 0
	payments := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		charges++ // one request at a time in this example
		fmt.Fprintf(w, `{"id":"ch_%d"}`, charges)
	}))
	defer payments.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- shop.Serve(ctx, shop.Options{Profile: "correct", PaymentsURL: payments.URL},
			func(a string) { addr <- a })
	}()
	url := "http://" + <-addr + "/orders"

	client := &http.Client{}
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"customer":"cus_1","amount":1234,"memo":"idem-0123456789abcdef"}`))
		req.Header.Set("Idempotency-Key", "order-1")
		resp, err := client.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		var body struct {
			Effect string `json:"effect"`
			Data   struct {
				ID     string `json:"id"`
				Charge string `json:"charge"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, body.Effect, body.Data.ID, body.Data.Charge)
	}
	client.CloseIdleConnections()
	cancel()
	fmt.Println("serve:", <-done, "charges:", charges)
	// Output:
	// 200 created ord_000001 ch_1
	// 200 noop ord_000001 ch_1
	// serve: <nil> charges: 1
}
