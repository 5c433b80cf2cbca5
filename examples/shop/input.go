package shop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Limits on what a request may carry.
const (
	maxBody      = 64 << 10
	maxCustomer  = 200
	maxMemo      = 5000
	maxAmount    = 99_999_999 // cents
	verifyAmount = 100        // cents, the read-side-effect profile's card check
)

// readObject reads the request body as one JSON object. Numbers stay
// json.Number so that the fingerprint sees them as sent.
func readObject(w http.ResponseWriter, r *http.Request) (map[string]any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, fmt.Errorf("body is larger than %d bytes", maxBody)
		}
		return nil, fmt.Errorf("read body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New(`body must be a JSON object, e.g. {"customer":"cus_1","amount":1234}`)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("body must hold exactly one JSON object")
	}
	return m, nil
}

// fingerprint identifies a request by method, path and the canonical JSON
// of its whole body (encoding/json sorts map keys), so that key order and
// spacing do not matter but every field does.
func fingerprint(method, path string, body map[string]any) string {
	canon, err := json.Marshal(body)
	if err != nil {
		// body came from the JSON decoder; it always re-encodes.
		panic("shop: canonical body: " + err.Error())
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", method, path)
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// dryRunRequested reads the dry_run query parameter.
func dryRunRequested(r *http.Request) (bool, error) {
	v := r.URL.Query().Get("dry_run")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("dry_run must be true or false, got %q", v)
	}
	return b, nil
}

// requestKey reads the Idempotency-Key header. The IETF draft sends it as
// a structured-field string ("…"); Stripe sends it bare. Both are accepted.
func requestKey(r *http.Request) string {
	k := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	return k
}

func stringField(m map[string]any, name string, required bool, limit int) (string, error) {
	v, ok := m[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("%s is required", name)
		}
		return "", nil
	}
	s, ok := v.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("%s must be a string", name)
	case required && strings.TrimSpace(s) == "":
		return "", fmt.Errorf("%s must not be empty", name)
	case len(s) > limit:
		return "", fmt.Errorf("%s must be at most %d bytes", name, limit)
	}
	return s, nil
}

func amountField(m map[string]any, name string) (int64, error) {
	v, ok := m[name]
	if !ok || v == nil {
		return 0, fmt.Errorf("%s is required (integer cents)", name)
	}
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s must be a number of cents", name)
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil || n < 1 || n > maxAmount {
		return 0, fmt.Errorf("%s must be an integer from 1 to %d (cents), got %s", name, maxAmount, num)
	}
	return n, nil
}
