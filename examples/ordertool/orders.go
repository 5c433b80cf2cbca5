package ordertool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// OrdersFile is the book of orders inside the state directory: one JSON
// order per line, appended by create-order, read by get-order.
const OrdersFile = "orders.jsonl"

// order is one line of the book, and create-order's data.
type order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Memo     string `json:"memo"`
	Charge   string `json:"charge,omitempty"`
}

// appendLine appends one JSON line to path with a single write(2), so
// that lines written by concurrent processes do not interleave.
func appendLine(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

// readLines returns the complete lines of path (none if it does not
// exist). A last line without its newline is being written by another
// process, or was cut by a crash: it is left out.
func readLines(path string) ([][]byte, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
	var out [][]byte
	for _, l := range bytes.Split(raw, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// findOrder looks an order up in the book.
func findOrder(stateDir, id string) (*order, error) {
	path := filepath.Join(stateDir, OrdersFile)
	lines, err := readLines(path)
	if err != nil {
		return nil, fmt.Errorf("orders: %v", err)
	}
	for _, l := range lines {
		var o order
		if json.Unmarshal(l, &o) == nil && o.ID == id {
			return &o, nil
		}
	}
	return nil, nil
}
