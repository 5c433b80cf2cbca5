package deps

import (
	"bytes"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/fakes"
)

// markerPrefix starts every marker; a statement without it holds none, and
// most statements are checked with this one search.
var markerPrefix = []byte("idem-")

// Markers returns the distinct intent markers found in parts, in order of
// appearance. A marker split across two parts is not found: each part is a
// statement's text or one of its parameters, and a marker lies within one.
func Markers(parts ...[]byte) []string {
	var out []string
	for _, p := range parts {
		if !bytes.Contains(p, markerPrefix) {
			continue
		}
		for _, m := range fakes.FindMarkers(p) {
			if !contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// MarkersIn returns the distinct intent markers in s, in order of
// appearance.
func MarkersIn(s string) []string {
	if !strings.Contains(s, string(markerPrefix)) {
		return nil
	}
	return fakes.FindMarkers([]byte(s))
}

// attribution holds the intent the harness declared in flight.
type attribution struct {
	mu       sync.RWMutex
	inFlight string
}

func (a *attribution) set(intent string) {
	a.mu.Lock()
	a.inFlight = intent
	a.mu.Unlock()
}

func (a *attribution) get() string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.inFlight
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Union returns a with the elements of b it lacks appended, in order.
func Union(a, b []string) []string {
	for _, s := range b {
		if !contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
