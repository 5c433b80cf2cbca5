package faults

import (
	"bytes"
	"encoding/json"
	"time"
)

func decodeStrict(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

func positive(name string, d Duration) error {
	if d <= 0 {
		return invalid(name, "%s: expected a duration above zero, such as \"250ms\"", time.Duration(d))
	}
	return nil
}
