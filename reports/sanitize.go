package reports

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"weak"

	"github.com/idemcheck/idemcheck/record"
)

// Clean makes text a target or a tool produced safe for every report
// format and for a terminal: invalid UTF-8 becomes U+FFFD, and every
// control character but newline and tab (ESC, NUL, BEL, CR, DEL, the C1
// controls) is written out as a visible escape such as \x1b, so that
// colour codes show as text instead of acting, and XML stays well formed.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case isControl(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isClean(s string) bool {
	for _, r := range s { // a range yields U+FFFD, width 1, for a bad byte
		if isControl(r) || r == utf8.RuneError {
			return utf8.ValidString(s) && !strings.ContainsFunc(s, isControl)
		}
	}
	return true
}

// isControl reports whether r must not reach a report or a terminal as is:
// C0 and C1 controls other than newline and tab, DEL, and the code points
// XML 1.0 forbids (U+FFFE, U+FFFF).
func isControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// cleaned returns a copy of res with every string cleaned (see Clean) and
// every credential of a known shape redacted (see RedactText): what the
// renderers write can then hold nothing a target printed raw. A result
// that is already such a copy (made by cleaned or Redact, which does
// more) is not transformed again, a demo's tens of megabytes once per
// report: its copy shares everything but the list of targets, the one
// thing a renderer writes to (the gate).
func cleaned(res *record.Result) *record.Result {
	if res == nil {
		return nil
	}
	if clean.has(res) {
		cp := *res
		cp.Targets = slices.Clone(res.Targets)
		clean.add(&cp)
		return &cp
	}
	return clean.add(transformed(res, func(s string) string { return RedactText(Clean(s), nil) }))
}

// clean is the set of results known to be cleaned, held weakly: a result
// leaves it when it is collected.
var clean cleanSet

type cleanSet struct {
	mu sync.Mutex
	m  map[weak.Pointer[record.Result]]struct{}
}

// add puts res in the set and returns it.
func (c *cleanSet) add(res *record.Result) *record.Result {
	if res == nil {
		return nil
	}
	w := weak.Make(res)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[weak.Pointer[record.Result]]struct{}{}
	}
	if _, ok := c.m[w]; !ok {
		c.m[w] = struct{}{}
		runtime.AddCleanup(res, func(w weak.Pointer[record.Result]) {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.m, w)
		}, w)
	}
	return res
}

// has says whether res is in the set.
func (c *cleanSet) has(res *record.Result) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[weak.Make(res)]
	return ok
}

// transformed returns a copy of res with fn applied to every string.
func transformed(res *record.Result, fn func(string) string) *record.Result {
	if res == nil {
		return nil
	}
	// A copy through the result's own JSON form, so that res is left as
	// it is; encoding/json already repairs invalid UTF-8.
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var out record.Result
	if err := json.Unmarshal(b, &out); err != nil {
		return res
	}
	mapStrings(reflect.ValueOf(&out).Elem(), fn)
	return &out
}

// mapStrings applies fn, in place, to every string reachable from v.
func mapStrings(v reflect.Value, fn func(string) string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				if t := fn(s); t != s {
					v.SetString(t)
				}
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() == reflect.String {
				v.Set(reflect.ValueOf(fn(e.String())))
				return
			}
			mapStrings(e, fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mapStrings(v.Field(i), fn)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			mapStrings(v.Index(i), fn)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var repl []kv
		for iter.Next() {
			k, val := iter.Key(), iter.Value()
			nv := reflect.New(val.Type()).Elem()
			nv.Set(val)
			mapStrings(nv, fn)
			nk := k
			if k.Kind() == reflect.String && fn(k.String()) != k.String() {
				nk = reflect.ValueOf(fn(k.String())).Convert(k.Type())
				v.SetMapIndex(k, reflect.Value{})
			}
			repl = append(repl, kv{nk, nv})
		}
		for _, p := range repl {
			v.SetMapIndex(p.k, p.v)
		}
	}
}
