package oncehttp

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestWriteRequestWritesWhatRequestWriteWrites compares writeRequest with
// net/http's Request.Write byte for byte, on requests it writes itself
// and on those it leaves to Request.Write.
func TestWriteRequestWritesWhatRequestWriteWrites(t *testing.T) {
	cases := map[string]func() *http.Request{
		"get": func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:8080/a/b?x=1&y=%20", nil)
			return r
		},
		"post with a body and headers": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, "http://example.test/orders", strings.NewReader(`{"a":1}`))
			r.Header.Set("Idempotency-Key", "k")
			r.Header.Add("X-Multi", "one")
			r.Header.Add("X-Multi", " two\r\nInjected: yes ")
			r.Header["Bad Name"] = []string{"v"}
			r.Header.Set("Host", "ignored.test")
			r.Header.Set("Content-Length", "999")
			return r
		},
		"post without a body": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
			return r
		},
		"delete without a body": func() *http.Request {
			r, _ := http.NewRequest(http.MethodDelete, "http://127.0.0.1:1/x", nil)
			return r
		},
		"own user agent, and an empty one": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPut, "http://[::1]:80/x", bytes.NewReader([]byte("b")))
			r.Header.Set("User-Agent", "  me\n ")
			return r
		},
		"no user agent": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPatch, "http://127.0.0.1:1/x", nil)
			r.Header["User-Agent"] = []string{""}
			return r
		},
		"host set apart from the URL": func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/x", nil)
			r.Host = "api.example.test"
			return r
		},
		// Left to Request.Write:
		"unknown length": func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/x", io.NopCloser(strings.NewReader("abc")))
			r.ContentLength = -1
			return r
		},
		"close": func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/x", nil)
			r.Close = true
			return r
		},
		"unicode host": func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, "http://bücher.example/x", nil)
			return r
		},
	}
	for name, newReq := range cases {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := newReq().Write(&want); err != nil {
				t.Fatal(err)
			}
			bw := bufio.NewWriter(&got)
			if err := writeRequest(bw, newReq()); err != nil {
				t.Fatal(err)
			}
			_ = bw.Flush()
			if got.String() != want.String() {
				t.Errorf("writeRequest wrote\n%q\nRequest.Write writes\n%q", got.String(), want.String())
			}
		})
	}
}

func TestWriteRequestRefusesABodyOfAnotherLength(t *testing.T) {
	for _, n := range []int64{2, 4} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/x", strings.NewReader("abc"))
		r.ContentLength = n
		if err := writeRequest(bufio.NewWriter(io.Discard), r); err == nil || !strings.Contains(err.Error(), "ContentLength") {
			t.Errorf("a body of 3 bytes announced as %d: got %v, want an error about its length", n, err)
		}
	}
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/x", strings.NewReader("abc"))
	if err := writeRequest(bufio.NewWriter(io.Discard), r); err != nil {
		t.Errorf("a body of its announced length: %v", err)
	}
}
