package harness

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// DecodeJSON decodes b with numbers kept as json.Number, so that a large
// integer identity keeps every digit. It returns nil when b is not JSON.
func DecodeJSON(b []byte) any {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// JSONPath reads the value at a dotted path ("effect", "data.id",
// "items.0.id") in a decoded JSON document, as the adapters read a
// reply's effect and identity. A string is returned as is, a number as
// written, anything else as JSON; ok is false when the path is empty or
// leads nowhere, or the value is null.
func JSONPath(doc any, path string) (string, bool) {
	if path == "" || doc == nil {
		return "", false
	}
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[part]
			if !ok {
				return "", false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			cur = x[i]
		default:
			return "", false
		}
	}
	switch x := cur.(type) {
	case string:
		return x, true
	case nil:
		return "", false
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	default:
		b, _ := json.Marshal(x)
		return string(b), true
	}
}
