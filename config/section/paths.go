package section

import (
	"strconv"
	"strings"
)

// PathField names the field name of the value at parent.
func PathField(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// PathIndex names item i of the list at parent.
func PathIndex(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// PathKey names a map entry. Keys that would be ambiguous as a field are
// quoted.
func PathKey(parent, key string) string {
	if key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return PathField(parent, key)
	}
	return parent + "[" + strconv.Quote(key) + "]"
}

// PathParent returns the path of the value that contains p; ok is false
// for the root. A quoted key containing '[' may yield a parent that does
// not exist, which callers treat as missing and step past.
func PathParent(p string) (parent string, ok bool) {
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
