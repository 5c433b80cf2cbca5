package shop

import (
	"fmt"
	"strconv"
	"strings"
)

// operation is one mutating thing the shop can do: each charges the
// customer once.
type operation struct {
	// name is the collection in the URL path, e.g. "orders".
	name string
	// prefix starts the ids of what it creates, e.g. "ord".
	prefix string
	// parse validates a request body into an intent.
	parse func(body map[string]any) (intent, error)
}

var (
	opOrders        = operation{name: "orders", prefix: "ord", parse: parseOrder}
	opSubscriptions = operation{name: "subscriptions", prefix: "sub", parse: parseSubscription}
)

// planPrices are the subscription plans and what they cost, in cents.
var planPrices = map[string]int64{"basic": 900, "pro": 2900}

// intent is a validated request: what to charge and why.
type intent struct {
	customer string
	amount   int64
	plan     string // subscriptions only
	// memo goes downstream verbatim as the charge description: it carries
	// the harness's marker.
	memo string
	// semantic is the request without its free text (see call.semantic).
	semantic string
}

func parseOrder(body map[string]any) (intent, error) {
	var in intent
	var err error
	if in.customer, err = stringField(body, "customer", true, maxCustomer); err != nil {
		return in, err
	}
	if in.amount, err = amountField(body, "amount"); err != nil {
		return in, err
	}
	if in.memo, err = stringField(body, "memo", false, maxMemo); err != nil {
		return in, err
	}
	in.semantic = semantic("orders", in.customer, strconv.FormatInt(in.amount, 10))
	return in, nil
}

func parseSubscription(body map[string]any) (intent, error) {
	var in intent
	var err error
	if in.customer, err = stringField(body, "customer", true, maxCustomer); err != nil {
		return in, err
	}
	if in.plan, err = stringField(body, "plan", true, 20); err != nil {
		return in, err
	}
	price, ok := planPrices[in.plan]
	if !ok {
		return in, fmt.Errorf(`plan must be "basic" or "pro", got %q`, in.plan)
	}
	in.amount = price
	if in.memo, err = stringField(body, "memo", false, maxMemo); err != nil {
		return in, err
	}
	in.semantic = semantic("subscriptions", in.customer, in.plan)
	return in, nil
}

// semantic joins the parts with NUL, which keeps "a"+"bc" and "ab"+"c"
// apart.
func semantic(parts ...string) string { return strings.Join(parts, "\x00") }

// record is what the shop created: an order or a subscription. A dry run
// shows it without id and charge.
type record struct {
	ID       string `json:"id,omitempty"`
	Charge   string `json:"charge,omitempty"`
	Customer string `json:"customer"`
	Plan     string `json:"plan,omitempty"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Memo     string `json:"memo"`
}

func (in intent) record(id string) record {
	return record{ID: id, Customer: in.customer, Plan: in.plan, Amount: in.amount, Currency: currency, Memo: in.memo}
}

func (in intent) charge() chargeRequest {
	return chargeRequest{Amount: in.amount, Currency: currency, Customer: in.customer, Description: in.memo}
}
