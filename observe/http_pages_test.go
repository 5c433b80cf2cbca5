package observe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/observe"
)

// pagedAPI is an orders API whose list is paginated in each of the ways a
// read-back follows, 10 objects a page unless the client asks otherwise:
//
//	GET /link?search=T           Link: <…&page=2>; rel="next"
//	GET /cursor?search=T&after=C {"data":[…],"meta":{"next":"C2"}}
//	GET /pages?search=T&page=N&per_page=S
//	GET /offset?search=T&offset=N&limit=S
//	GET /ignores?search=T        the first page, whatever is asked
//
// POST /orders {"note":…} adds an order.
type pagedAPI struct {
	mu     sync.Mutex
	orders []map[string]any
	reads  int
}

func (a *pagedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		var o map[string]any
		if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		o["id"] = fmt.Sprintf("ord_%d", len(a.orders)+1)
		a.orders = append(a.orders, o)
		a.mu.Unlock()
		_ = json.NewEncoder(w).Encode(o)
		return
	}
	q := r.URL.Query()
	a.mu.Lock()
	a.reads++
	var match []map[string]any
	for _, o := range a.orders {
		if strings.Contains(o["note"].(string), q.Get("search")) {
			match = append(match, o)
		}
	}
	a.mu.Unlock()
	size := 10
	from := 0
	switch r.URL.Path {
	case "/link", "/pages", "/ignores":
		if r.URL.Path != "/ignores" {
			if n, err := strconv.Atoi(q.Get("page")); err == nil {
				from = (n - 1) * size
			}
		}
		if s, err := strconv.Atoi(q.Get("per_page")); err == nil {
			size = s
			from = from / 10 * size
		}
	case "/cursor":
		from, _ = strconv.Atoi(strings.TrimPrefix(q.Get("after"), "c"))
	case "/offset":
		from, _ = strconv.Atoi(q.Get("offset"))
		if s, err := strconv.Atoi(q.Get("limit")); err == nil {
			size = s
		}
	}
	from = min(from, len(match))
	to := min(from+size, len(match))
	page := match[from:to]
	body := map[string]any{"data": page}
	if to < len(match) {
		switch r.URL.Path {
		case "/link":
			next := *r.URL
			nq := next.Query()
			nq.Set("page", strconv.Itoa(to/size+1))
			next.RawQuery = nq.Encode()
			w.Header().Add("Link", `<`+next.String()+`>; rel="next", </link?page=1>; rel="first"`)
		case "/cursor":
			body["meta"] = map[string]any{"next": "c" + strconv.Itoa(to)}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// burst posts n orders for marker at once.
func (a *pagedAPI) burst(t *testing.T, url, marker string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(url+"/orders", "application/json", strings.NewReader(fmt.Sprintf(`{"note":"order %d %s"}`, i, marker)))
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// A burst of 20 orders behind a read-back paged by 10 counts 20, however
// the API pages; another marker's orders never count. Without pages, the
// read-back saw the first page only: 10.
func TestHTTPReadBackFollowsEveryPage(t *testing.T) {
	api := &pagedAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	api.burst(t, srv.URL, m1, 20)
	api.burst(t, srv.URL, m2, 5)
	for _, tc := range []struct {
		why   string
		path  string
		pages observe.Pages
		want  int
	}{
		{"one page: what an observer that ignores pagination counts", "/pages?search={{marker}}", observe.Pages{}, 10},
		{"an RFC 8288 Link header", "/link?search={{marker}}", observe.Pages{Link: true}, 20},
		{"a cursor in the reply, sent back in a parameter", "/cursor?search={{marker}}", observe.Pages{Next: "meta.next", Cursor: "after"}, 20},
		{"page numbers, until a short page", "/pages?search={{marker}}", observe.Pages{Page: "page", Size: 10}, 20},
		{"page numbers with the size asked for", "/pages?search={{marker}}", observe.Pages{Page: "page", Size: 7, SizeParam: "per_page"}, 20},
		{"offsets", "/offset?search={{marker}}", observe.Pages{Offset: "offset", Size: 10, SizeParam: "limit"}, 20},
		{"an API that ignores the page asked for: its first page, once", "/ignores?search={{marker}}", observe.Pages{Page: "page"}, 10},
	} {
		o, err := observe.OpenHTTP(srv.URL, observe.HTTP{Name: "orders-api", URL: tc.path, Items: "data", Pages: tc.pages, Settle: quick})
		require.NoError(t, err, tc.why)
		ledger := fakes.NewLedger()
		require.NoError(t, o.Observe(context.Background(), ledger, m1), tc.why)
		assert.Len(t, ledger.Effects(), tc.want, tc.why)
		for _, e := range ledger.Effects() {
			assert.Empty(t, e.Detail[observe.DetailPartial], tc.why)
		}
		assert.Zero(t, o.Stats().Partial, tc.why)
		require.NoError(t, o.Close())
	}
}

// A read-back that stops at its page limit says so: in the effects it
// records, in its Stats and in its Summary.
func TestHTTPReadBackSaysWhenItStoppedAtThePageLimit(t *testing.T) {
	api := &pagedAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	api.burst(t, srv.URL, m1, 25)
	o, err := observe.OpenHTTP(srv.URL, observe.HTTP{Name: "orders-api", Kind: "order", URL: "/link?search={{marker}}", Items: "data",
		Pages: observe.Pages{Link: true, Max: 2}, Settle: quick})
	require.NoError(t, err)
	defer o.Close()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	require.Len(t, ledger.Effects(), 20, "two pages of ten")
	assert.Equal(t, "stopped at the page limit (2 pages)", ledger.Effects()[0].Detail[observe.DetailPartial])
	assert.Equal(t, 1, o.Stats().Partial)
	assert.Equal(t, "orders-api (http) found an order for 1 of the 1 marker; 1 read stopped at the page limit (2 pages): its counts may be low", o.Summary())
}

func TestPagesSettingsAreChecked(t *testing.T) {
	for _, p := range []observe.Pages{
		{Link: true, Page: "page"},
		{SizeParam: "limit"},
		{Max: -1},
	} {
		_, err := observe.OpenHTTP("http://127.0.0.1:1", observe.HTTP{URL: "/x", Pages: p})
		assert.Error(t, err, "%+v", p)
	}
}

// Link headers as servers write them: several links, several relation
// types in one rel, relative targets, odd spacing and case.
func TestLinkHeaderNext(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("p"))
		switch page {
		case 0:
			w.Header().Add("Link", `<https://elsewhere.test/x>; rel="prev"`)
			w.Header().Add("Link", `</list?p=1>;rel="next last"`)
		case 1:
			w.Header().Set("Link", `<list?p=2> ; REL = next , <https://elsewhere.test/y>; rel="first"`)
		}
		fmt.Fprintf(w, `[{"id":"p%d","note":"%s"}]`, page, m1)
	})
	srv := httptest.NewServer(api)
	defer srv.Close()
	o, err := observe.OpenHTTP(srv.URL, observe.HTTP{URL: "/list", Pages: observe.Pages{Link: true}, Settle: quick})
	require.NoError(t, err)
	defer o.Close()
	ledger := fakes.NewLedger()
	require.NoError(t, o.Observe(context.Background(), ledger, m1))
	var got []string
	for _, e := range ledger.Effects() {
		got = append(got, e.ID)
	}
	assert.Equal(t, []string{"p0", "p1", "p2"}, got)
}
