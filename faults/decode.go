package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

func decodeStrict(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

func positive(name string, d Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s %s: expected a duration above zero, e.g. \"250ms\"", name, time.Duration(d))
	}
	return nil
}
