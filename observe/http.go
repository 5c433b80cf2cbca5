package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// HTTP describes a read-back request to the target's own API that lists
// the objects an intent created.
type HTTP struct {
	// Name names the observer (the Fake of its effects); default "http".
	Name string
	// Kind is the kind of effect an object is (default "object").
	Kind string
	// URL is the read-back: a path such as /v1/orders?search={{marker}},
	// taken relative to the target's URL, or an absolute URL. With
	// {{marker}} the API is trusted to filter; without it, only the
	// objects whose JSON holds the marker count.
	URL     string
	Method  string
	Headers map[string]string
	// Items is the dotted JSON path of the array of objects in the reply
	// (e.g. "data"); "" when the reply is the array itself.
	Items string
	// ID is the dotted JSON path of an object's identity (default "id").
	ID string
	// Timeout bounds one read-back request (default 5s).
	Timeout time.Duration
	Settle  Settle
	// Limit, if not nil, is called before each read-back: a remote
	// target's budget and rate count the observer's requests too.
	Limit func(ctx context.Context, n int) error
}

// UserAgent is sent with every read-back request.
const UserAgent = "idemcheck (+https://github.com/idemcheck/idemcheck) observer"

// OpenHTTP returns an observer reading back through base, the target's
// URL (for a relative URL).
func OpenHTTP(base string, h HTTP) (*Observer, error) {
	u := h.URL
	if strings.HasPrefix(u, "/") {
		if base == "" {
			return nil, fmt.Errorf("read-back %s is relative but the target has no URL", u)
		}
		u = strings.TrimSuffix(base, "/") + u
	}
	if _, err := url.Parse(strings.ReplaceAll(u, "{{marker}}", "m")); err != nil {
		return nil, fmt.Errorf("read-back url: %w", err)
	}
	if h.Method == "" {
		h.Method = http.MethodGet
	}
	if h.ID == "" {
		h.ID = "id"
	}
	if h.Timeout <= 0 {
		h.Timeout = 5 * time.Second
	}
	name, kind := h.Name, h.Kind
	if name == "" {
		name = "http"
	}
	if kind == "" {
		kind = "object"
	}
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2}
	f := &httpFinder{h: h, url: u, client: &http.Client{Transport: tr, Timeout: h.Timeout}}
	return New(name, "http", kind, h.Settle, f, func() error { tr.CloseIdleConnections(); return nil }), nil
}

type httpFinder struct {
	h      HTTP
	url    string
	client *http.Client
}

// maxBody bounds what is read of a read-back reply.
const maxBody = 8 << 20

// Find sends the read-back and lists the objects attributed to marker.
func (f *httpFinder) Find(ctx context.Context, marker string) ([]Row, error) {
	req, err := http.NewRequestWithContext(ctx, f.h.Method, strings.ReplaceAll(f.url, "{{marker}}", url.QueryEscape(marker)), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range f.h.Headers {
		req.Header.Set(k, strings.ReplaceAll(v, "{{marker}}", marker))
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "application/json")
	if f.h.Limit != nil {
		if err := f.h.Limit(ctx, 1); err != nil {
			return nil, fmt.Errorf("read-back not sent: %w", err)
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read-back %s %s: %w", f.h.Method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read-back %s: reading the reply: %w", req.URL.Redacted(), err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("read-back %s %s answered %d: %s", f.h.Method, req.URL.Redacted(), resp.StatusCode, head(body))
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read-back %s: the reply is not JSON: %s", req.URL.Redacted(), head(body))
	}
	list, ok := Lookup(doc, f.h.Items)
	if !ok {
		return nil, fmt.Errorf("read-back %s: the reply has no %q: %s", req.URL.Redacted(), f.h.Items, head(body))
	}
	items, ok := list.([]any)
	if !ok {
		if list == nil {
			return nil, nil // "data": null, an empty list
		}
		return nil, fmt.Errorf("read-back %s: %q is not a list: %s", req.URL.Redacted(), f.h.Items, head(body))
	}
	filter := !strings.Contains(f.h.URL, "{{marker}}")
	var out []Row
	for i, it := range items {
		raw, _ := json.Marshal(it)
		if filter && !bytes.Contains(raw, []byte(marker)) {
			continue
		}
		id, ok := Lookup(it, f.h.ID)
		if !ok || id == nil {
			return nil, fmt.Errorf("read-back %s: object %d has no %q: %s", req.URL.Redacted(), i, f.h.ID, head(raw))
		}
		out = append(out, Row{ID: fmt.Sprint(id)})
	}
	return out, nil
}

// Lookup follows a dotted path ("data.items", "0.id") through a decoded
// JSON document; "" is the document itself.
func Lookup(doc any, path string) (any, bool) {
	if path == "" {
		return doc, true
	}
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func head(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
