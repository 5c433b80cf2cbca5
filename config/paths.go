package config

import (
	"strconv"
	"strings"
)

// Paths name a value in the file the way a reader would: fields joined by
// dots, list items by index, map keys as fields unless they need quoting:
// targets[0].operations[1].headers.X-Trace, faults[2]["a.b"].

func pathField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func pathIndex(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// pathKey names a map entry. Keys that would be ambiguous as a field are
// quoted.
func pathKey(parent, key string) string {
	if key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return pathField(parent, key)
	}
	return parent + "[" + strconv.Quote(key) + "]"
}

// pathParent returns the path of the value that contains p; ok is false
// for the root. A quoted key containing '[' may yield a parent that does
// not exist, which callers treat as missing and step past.
func pathParent(p string) (parent string, ok bool) {
	if p == "" {
		return "", false
	}
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i], true
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i], true
	}
	return "", true
}

// pos is the 1-based line and column of a YAML node.
type pos struct{ line, col int }

// lookupPos returns the position recorded for path or for its nearest
// ancestor that has one: a missing field is reported where its parent is.
func lookupPos(m map[string]pos, path string) pos {
	for p, ok := path, true; ok; p, ok = pathParent(p) {
		if at, found := m[p]; found {
			return at
		}
	}
	return pos{}
}
