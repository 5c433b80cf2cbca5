package payments

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"
)

// parseParams decodes a charge request body by its Content-Type into
// Stripe's form-encoded names: a JSON {"metadata":{"k":"v"}} becomes
// metadata[k]=v, so that the same charge sent either way has the same
// parameters and the same fingerprint. An empty Content-Type means form
// encoding, as Stripe's own clients send.
func parseParams(contentType string, body []byte) (url.Values, *apiError) {
	mt := "application/x-www-form-urlencoded"
	if contentType != "" {
		var err error
		mt, _, err = mime.ParseMediaType(contentType)
		if err != nil {
			return nil, invalidParam("", "Invalid Content-Type %q: %v; send application/x-www-form-urlencoded or application/json.", contentType, err)
		}
	}
	switch {
	case mt == "application/x-www-form-urlencoded":
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, invalidParam("", "Invalid form-encoded body: %v.", err)
		}
		return v, nil
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return parseJSONParams(body)
	default:
		return nil, invalidParam("", "Unsupported Content-Type %q; send application/x-www-form-urlencoded or application/json.", mt)
	}
}

// parseJSONParams decodes a JSON object body and flattens it.
func parseJSONParams(body []byte) (url.Values, *apiError) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, invalidParam("", `Empty JSON body; send an object such as {"amount":1000,"currency":"usd"}.`)
		}
		return nil, invalidParam("", "Invalid JSON body: %v.", err)
	}
	if obj == nil {
		return nil, invalidParam("", `JSON body is null; send an object such as {"amount":1000,"currency":"usd"}.`)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalidParam("", "Invalid JSON body: data after the top-level object.")
	}
	v := url.Values{}
	for k, x := range obj {
		flatten(k, x, v)
	}
	return v, nil
}

// flatten adds x to out under Stripe's bracketed names. JSON nulls are left
// out, as if the parameter were absent.
func flatten(name string, x any, out url.Values) {
	switch x := x.(type) {
	case nil:
	case string:
		out.Add(name, x)
	case json.Number:
		out.Add(name, x.String())
	case bool:
		out.Add(name, strconv.FormatBool(x))
	case map[string]any:
		for k, y := range x {
			flatten(name+"["+k+"]", y, out)
		}
	case []any:
		for i, y := range x {
			flatten(name+"["+strconv.Itoa(i)+"]", y, out)
		}
	}
}

// fingerprint returns a canonical form of every parameter of a request,
// known or not, to tell a retry from a different request under the same
// idempotency key.
func fingerprint(v url.Values) string {
	// Encode sorts by name; values of one name keep the order they were
	// sent in, which is part of the request.
	return v.Encode()
}

// chargeParams are the validated parameters of a charge.
type chargeParams struct {
	amount      int64
	currency    string
	customer    string
	description string
	metadata    map[string]string
}

// chargeParamsFrom validates v. Unknown parameters are accepted and
// ignored, so that targets can send what the real API also takes (source,
// payment_method, …).
func chargeParamsFrom(v url.Values) (chargeParams, *apiError) {
	var p chargeParams
	amount, ok := v["amount"]
	if !ok || len(amount) == 0 || amount[0] == "" {
		return p, invalidParam("amount", "Missing required param: amount.")
	}
	n, err := strconv.ParseInt(amount[0], 10, 64)
	if err != nil || n <= 0 {
		return p, invalidParam("amount", "Invalid amount %s: must be a positive integer in the currency's smallest unit (e.g. 1000 for $10.00).", quoteShort(amount[0]))
	}
	p.amount = n

	p.currency = strings.ToLower(v.Get("currency"))
	if p.currency == "" {
		p.currency = "usd"
	}
	if !isCurrency(p.currency) {
		return p, invalidParam("currency", "Invalid currency %s: must be a three-letter ISO code such as usd.", quoteShort(v.Get("currency")))
	}
	p.customer = v.Get("customer")
	p.description = v.Get("description")

	p.metadata = map[string]string{}
	for name, vals := range v {
		key, ok := strings.CutPrefix(name, "metadata[")
		if !ok {
			continue
		}
		key, ok = strings.CutSuffix(key, "]")
		if !ok || key == "" || strings.ContainsAny(key, "[]") {
			return p, invalidParam(name, "Invalid metadata parameter %s: metadata is a flat map of string keys to string values, sent as metadata[key]=value.", quoteShort(name))
		}
		p.metadata[key] = vals[0]
	}
	return p, nil
}

// isCurrency reports whether s looks like a lower-case ISO 4217 code.
func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, c := range []byte(s) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// quoteShort quotes s for an error message, cut short if it is long.
func quoteShort(s string) string {
	const limit = 64
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:limit]) + "…"
}
