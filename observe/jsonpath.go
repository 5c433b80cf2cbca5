package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Lookup follows a JSON path through a decoded JSON document: names and
// indexes separated by dots ("data.items.0.id"), or indexes in brackets
// ("data.items[0].id", "[0].id"); "" is the document itself.
func Lookup(doc any, path string) (any, bool) {
	cur := doc
	for _, part := range SplitPath(path) {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// SplitPath splits a JSON path into its names and indexes:
// "entities[0].observations.1" is entities, 0, observations, 1.
func SplitPath(path string) []string {
	if path == "" {
		return nil
	}
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// decodeJSON decodes one JSON document, numbers kept as written.
func decodeJSON(b []byte) (any, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value (offset %d)", dec.InputOffset())
	}
	return doc, nil
}

// scalar writes a JSON value as an identity: a string as it is, a number
// as written, anything else as JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// identityAt reads an item's identity at path: a string as it is, a
// number as written, anything else as JSON; ok is false when the path is
// not there, or leads to null or an empty string.
func identityAt(item any, path string) (string, bool) {
	v, ok := Lookup(item, path)
	if !ok || v == nil {
		return "", false
	}
	id := scalar(v)
	return id, id != ""
}
