package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// The adapter delivers one signed event to a handler; the event id is the
// intent's key.
func Example() {
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Println(r.Method, r.URL.Path)
		fmt.Println(string(body))
		fmt.Println(r.Header.Get("Idemcheck-Signature"))
	}))
	defer handler.Close()

	tg, err := webhook.New(webhook.Config{
		Name:      "payments-handler",
		BaseURL:   handler.URL,
		Signature: webhook.Signature{Secret: "whsec_demo"},
		Now:       func() time.Time { return time.Unix(1700000000, 0) },
		Events: []webhook.Event{{
			Name: "invoice.due", Path: "/webhooks/payments",
			Body: `{"id":"{{key}}","type":"invoice.due","created":{{created}},"data":{"amount":{{input.amount}},"description":"{{marker}}"}}`,
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tg.Close()
	rep := tg.Call(context.Background(), harness.Call{
		ID: "a-1", Operation: "invoice.due", Key: "evt_1", Marker: "idem-00000000000000aa",
		Inputs: map[string]string{"amount": "1234"},
	})
	fmt.Println(rep.Outcome, rep.Status)
	// Output:
	// POST /webhooks/payments
	// {"id":"evt_1","type":"invoice.due","created":1700000000,"data":{"amount":1234,"description":"idem-00000000000000aa"}}
	// t=1700000000,v1=d041c1606eb3434b71a1088538c099e59c47ec70b67f68afc8b43f6e25270356
	// ok 200
}
