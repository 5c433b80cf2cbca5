package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// HTTP describes a read-back request to the target's own API that lists
// the objects an intent created. As a Source, its settings are the
// JSON-tagged fields; Name, Kind, Settle, Timeout and Limit serve
// HTTPStarter and OpenHTTP.
type HTTP struct {
	// Name names the observer (the Fake of its effects); default "http".
	Name string `json:"-"`
	// Kind is the kind of effect an object is (default "object").
	Kind string `json:"-"`
	// URL is the read-back: a path such as /v1/orders?search={{marker}},
	// taken relative to the target's URL, or an absolute URL. With
	// {{marker}} the API is trusted to filter; without it, only the
	// objects whose JSON holds the marker count.
	URL     string            `json:"path"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Items is the JSON path of the array of objects in the reply
	// ("data", "result.items", "data[0].lines"); "" when the reply is the
	// array itself.
	Items string `json:"items,omitempty"`
	// ID is the JSON path of an object's identity (default "id").
	ID string `json:"id,omitempty"`
	// Pages says how to follow a paginated list; the zero value reads one
	// page.
	Pages Pages `json:"pages,omitzero"`
	// Value is the JSON path of a number in the reply (a total, a
	// balance), for a Count that reads one.
	Value string `json:"value,omitempty"`
	// Timeout bounds one read-back request (default 5s).
	Timeout time.Duration `json:"-"`
	Settle  Settle        `json:"-"`
	// Limit, if not nil, is called before each request: a remote
	// target's budget and rate count the observer's requests too.
	Limit func(ctx context.Context, n int) error `json:"-"`
}

// UserAgent is sent with every read-back request.
const UserAgent = "idemcheck (+https://github.com/idemcheck/idemcheck) observer"

var _ Source = HTTP{}

// Type implements Source.
func (HTTP) Type() string { return "http" }

// EffectKind implements EffectKind: an object.
func (HTTP) EffectKind() string { return "object" }

// Validate implements Validator.
func (h HTTP) Validate() error {
	if h.URL == "" {
		return errors.New("path: required: the read-back, e.g. /v1/orders?search={{marker}}")
	}
	return h.Pages.validate()
}

// Open implements Source: a relative path is read through the started
// target's URL, and counts against its request budget.
func (h HTTP) Open(_ context.Context, w Where) (Finder, error) {
	u, err := w.Expand(h.URL)
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	h.URL = u
	for k, v := range h.Headers {
		if h.Headers[k], err = w.Expand(v); err != nil {
			return nil, fmt.Errorf("headers.%s: %w", k, err)
		}
	}
	if h.Limit == nil {
		h.Limit = w.Limit()
	}
	return newHTTPFinder(w.BaseURL(), h)
}

// OpenHTTP returns an observer reading back through base, the target's
// URL (for a relative URL).
func OpenHTTP(base string, h HTTP) (*Observer, error) {
	f, err := newHTTPFinder(base, h)
	if err != nil {
		return nil, err
	}
	name, kind := h.Name, h.Kind
	if name == "" {
		name = "http"
	}
	if kind == "" {
		kind = "object"
	}
	return New(name, "http", kind, h.Settle, f, f.Close), nil
}

func newHTTPFinder(base string, h HTTP) (*httpFinder, error) {
	if err := h.Pages.validate(); err != nil {
		return nil, err
	}
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
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2}
	return &httpFinder{h: h, url: u, tr: tr, client: &http.Client{Transport: tr, Timeout: h.Timeout}}, nil
}

type httpFinder struct {
	h      HTTP
	url    string
	tr     *http.Transport
	client *http.Client
}

// Close releases idle connections.
func (f *httpFinder) Close() error {
	f.tr.CloseIdleConnections()
	return nil
}

// maxBody bounds what is read of a read-back reply.
const maxBody = 8 << 20

// Find sends the read-back, follows its pages, and lists the objects
// attributed to marker.
func (f *httpFinder) Find(ctx context.Context, marker string) (Found, error) {
	filter := !strings.Contains(f.h.URL, "{{marker}}")
	items, partial, err := f.list(ctx, marker)
	if err != nil {
		return Found{}, err
	}
	var out []Row
	for _, it := range items {
		if filter && !bytes.Contains(it.raw, []byte(marker)) {
			continue
		}
		out = append(out, Row{ID: it.id})
	}
	return Found{Rows: out, Partial: partial}, nil
}

// Measure implements Measurer: the number at Value, or every listed
// object's identity.
func (f *httpFinder) Measure(ctx context.Context, rows bool) (Reading, error) {
	if !rows {
		u := f.url
		doc, _, err := f.get(ctx, u, "")
		if err != nil {
			return Reading{}, err
		}
		v, ok := Lookup(doc, f.h.Value)
		if !ok {
			return Reading{}, fmt.Errorf("read-back %s: the reply has no %q", redactURL(u), f.h.Value)
		}
		return number(scalar(v))
	}
	items, partial, err := f.list(ctx, "")
	if err != nil {
		return Reading{}, err
	}
	if partial != "" {
		return Reading{}, fmt.Errorf("read-back %s %s: a count needs every row", redactURL(f.url), partial)
	}
	r := Reading{Rows: true, IDs: make([]string, len(items)), Number: float64(len(items))}
	for i, it := range items {
		r.IDs[i] = it.id
	}
	return r, nil
}

// item is one listed object: its identity and its JSON.
type item struct {
	id  string
	raw []byte
}

// list reads every page (up to the page limit) and returns the objects,
// each identity once, and why the list may be incomplete.
func (f *httpFinder) list(ctx context.Context, marker string) ([]item, string, error) {
	u := strings.ReplaceAll(f.url, "{{marker}}", url.QueryEscape(marker))
	p := f.h.Pages.fill()
	var out []item
	seen := map[string]bool{}
	var last []byte
	read := 0 // objects read, repeats included: the next offset
	for page := 0; ; page++ {
		if page == p.Max {
			return out, fmt.Sprintf("stopped at the page limit (%d pages)", p.Max), nil
		}
		pu, err := p.url(u, page, read)
		if err != nil {
			return nil, "", err
		}
		doc, resp, err := f.get(ctx, pu, marker)
		if err != nil {
			return nil, "", err
		}
		raw, _ := json.Marshal(doc)
		if page > 0 && bytes.Equal(raw, last) {
			return out, "", nil // the API ignores the page asked for: the same page again
		}
		last = raw
		items, err := f.items(pu, doc)
		if err != nil {
			return nil, "", err
		}
		read += len(items)
		for _, it := range items {
			if !seen[it.id] {
				seen[it.id] = true
				out = append(out, it)
			}
		}
		next, err := p.next(pu, resp, doc, len(items))
		if err != nil || next == "" {
			return out, "", err
		}
		u = next
	}
}

// items reads the objects of one page.
func (f *httpFinder) items(u string, doc any) ([]item, error) {
	list, ok := Lookup(doc, f.h.Items)
	if !ok {
		raw, _ := json.Marshal(doc)
		return nil, fmt.Errorf("read-back %s: the reply has no %q: %s", redactURL(u), f.h.Items, head(raw))
	}
	arr, ok := list.([]any)
	if !ok {
		if list == nil {
			return nil, nil // "data": null, an empty list
		}
		raw, _ := json.Marshal(doc)
		return nil, fmt.Errorf("read-back %s: %q is not a list: %s", redactURL(u), f.h.Items, head(raw))
	}
	out := make([]item, 0, len(arr))
	for i, it := range arr {
		raw, _ := json.Marshal(it)
		id, ok := identityAt(it, f.h.ID)
		if !ok {
			return nil, fmt.Errorf("read-back %s: object %d has no %q: %s", redactURL(u), i, f.h.ID, head(raw))
		}
		out = append(out, item{id: id, raw: raw})
	}
	return out, nil
}

// get sends one read-back request, with {{marker}} in a header replaced
// by marker, and decodes its JSON reply.
func (f *httpFinder) get(ctx context.Context, u, marker string) (any, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, f.h.Method, u, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range f.h.Headers {
		req.Header.Set(k, strings.ReplaceAll(v, "{{marker}}", marker))
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "application/json")
	if f.h.Limit != nil {
		if err := f.h.Limit(ctx, 1); err != nil {
			return nil, nil, fmt.Errorf("read-back not sent: %w", err)
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("read-back %s %s: %w", f.h.Method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, fmt.Errorf("read-back %s: reading the reply: %w", req.URL.Redacted(), err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("read-back %s %s answered %d: %s%s", f.h.Method, req.URL.Redacted(), resp.StatusCode, head(body), oncehttp.PlainToTLSHint(string(body)))
	}
	doc, err := decodeJSON(body)
	if err != nil {
		return nil, nil, fmt.Errorf("read-back %s: the reply is not JSON: %s", req.URL.Redacted(), head(body))
	}
	return doc, resp, nil
}

func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Redacted()
}

func head(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ") // on one line
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
