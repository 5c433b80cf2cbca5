package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// verifySignature checks a Stripe-style signature header,
// "t=UNIX,v1=HEX[,v1=HEX…]", against body: one v1 must be the HMAC-SHA256
// of "UNIX.BODY" under secret, and UNIX within Tolerance of now.
func verifySignature(secret []byte, header string, body []byte, now time.Time) error {
	if header == "" {
		return fmt.Errorf("missing %s header", SignatureHeader)
	}
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("malformed %s header: want t=UNIX,v1=HEX", SignatureHeader)
	}
	if age := now.Sub(time.Unix(unix, 0)); age > Tolerance || age < -Tolerance {
		return fmt.Errorf("the signature's timestamp is %s away from now (tolerance %s): a replayed delivery?", age.Round(time.Second), Tolerance)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return errors.New("the signature does not match the body: wrong secret, or the body was altered")
}
