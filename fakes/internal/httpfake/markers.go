package httpfake

import (
	"bytes"
	"maps"
	"net/http"
	"slices"

	"github.com/idemcheck/idemcheck/fakes"
)

// Markers finds the markers anywhere in the request: the host and URL, the
// headers (by name, so the order is stable), then the body.
func Markers(r *http.Request, body []byte) []string {
	var b bytes.Buffer
	b.WriteString(r.Host)
	b.WriteByte('\n')
	b.WriteString(r.RequestURI)
	b.WriteByte('\n')
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		for _, v := range r.Header[name] {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteByte('\n')
		}
	}
	b.Write(body)
	return fakes.FindMarkers(b.Bytes())
}
