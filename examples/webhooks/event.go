package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Event types the handler knows.
const (
	typeInvoiceDue = "invoice.due"
	typePing       = "ping"
)

// event is a parsed delivery.
type event struct {
	ID      string
	Type    string
	Created int64
	// invoice.due only.
	Customer    string
	Amount      int64
	Description string
}

// maxAmount bounds a charge, in cents.
const maxAmount = 99_999_999

// parseEvent reads one event; the error says what is wrong, for a 400.
func parseEvent(body []byte) (event, error) {
	var raw struct {
		ID      *string         `json:"id"`
		Type    string          `json:"type"`
		Created json.Number     `json:"created"`
		Data    json.RawMessage `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return event{}, fmt.Errorf("the body is not a JSON event: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return event{}, errors.New("the body must hold exactly one JSON event")
	}
	ev := event{Type: raw.Type}
	if raw.ID == nil || strings.TrimSpace(*raw.ID) == "" {
		return ev, errors.New(`the event has no id; every event needs a unique "id"`)
	}
	ev.ID = *raw.ID
	if len(ev.ID) > 255 {
		return ev, errors.New("the event id is longer than 255 characters")
	}
	if ev.Type == "" {
		return ev, errors.New(`the event has no "type"`)
	}
	if raw.Created != "" {
		n, err := strconv.ParseInt(raw.Created.String(), 10, 64)
		if err != nil {
			return ev, fmt.Errorf("created must be a Unix time in seconds, got %s", raw.Created)
		}
		ev.Created = n
	}
	if ev.Type != typeInvoiceDue {
		return ev, nil
	}
	var data struct {
		Customer    string      `json:"customer"`
		Amount      json.Number `json:"amount"`
		Description string      `json:"description"`
	}
	dec = json.NewDecoder(bytes.NewReader(raw.Data))
	dec.UseNumber()
	if len(raw.Data) == 0 || dec.Decode(&data) != nil {
		return ev, errors.New(`invoice.due needs "data":{"customer":…,"amount":…,"description":…}`)
	}
	if strings.TrimSpace(data.Customer) == "" {
		return ev, errors.New("data.customer is required")
	}
	n, err := strconv.ParseInt(data.Amount.String(), 10, 64)
	if err != nil || n < 1 || n > maxAmount {
		return ev, fmt.Errorf("data.amount must be an integer from 1 to %d (cents), got %q", maxAmount, data.Amount)
	}
	ev.Customer, ev.Amount, ev.Description = data.Customer, n, data.Description
	return ev, nil
}
