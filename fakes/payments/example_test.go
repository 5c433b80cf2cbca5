package payments_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/payments"
)

// A target charges through the fake as it would through Stripe; the ledger
// attributes the charge to the marker in its description.
func Example() {
	srv, err := payments.New(payments.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	resp, err := http.PostForm(srv.URL()+"/v1/charges", url.Values{
		"amount":      {"1999"},
		"currency":    {"eur"},
		"description": {"order 7 idem-00000000000000aa"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var ch payments.Charge
	if err := json.NewDecoder(resp.Body).Decode(&ch); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, ch.ID, ch.Amount, ch.Currency, ch.Status)

	for _, e := range srv.Ledger().ByMarker("idem-00000000000000aa") {
		fmt.Println(e.Seq, e.Fake, e.Kind, e.ID, e.Detail["amount"])
	}
	// Output:
	// 200 ch_000001 1999 eur succeeded
	// 1 payments charge ch_000001 1999
}

// A FailAfter rule charges and then answers 503; a retry with the same
// Idempotency-Key replays the charge instead of making a second one.
func ExampleServer_Arm() {
	srv, err := payments.New(payments.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.Arm(fakes.Rule{Marker: "idem-00000000000000aa", Action: fakes.FailAfter})

	charge := func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/charges",
			strings.NewReader("amount=500&description=idem-00000000000000aa"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Idempotency-Key", "order-7")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, "replayed:", resp.Header.Get("Idempotent-Replayed") == "true")
	}
	charge()
	charge()
	fmt.Println("charges:", len(srv.Ledger().Effects()))
	// Output:
	// 503 replayed: false
	// 200 replayed: true
	// charges: 1
}

// With IgnoreIdempotencyKeys the fake models a provider without idempotency
// support: the same request twice is two charges.
func ExampleOptions_ignoreIdempotencyKeys() {
	srv, err := payments.New(payments.Options{IgnoreIdempotencyKeys: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/charges",
			strings.NewReader(`{"amount":500}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-7")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
	}
	for _, ch := range srv.Charges() {
		fmt.Println(ch.ID, ch.Amount, ch.Currency)
	}
	// Output:
	// ch_000001 500 usd
	// ch_000002 500 usd
}
