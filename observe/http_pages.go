package observe

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Pages says how a read-back follows a paginated list: by the RFC 8288
// Link header (Link), by a cursor in the reply (Next), or by a page number
// or an offset in the query (Page, Offset). The zero value reads one page.
//
//	{link: true}                                  Link: <…?page=2>; rel="next"
//	{next: meta.next_cursor, cursor: after}       …&after=CURSOR until the cursor is empty
//	{page: page, size: 10, size_param: per_page}  …&page=1&per_page=10, 2, 3 … until a short page
//	{offset: offset, size: 10, size_param: limit} …&offset=0&limit=10, 10, 20 …
type Pages struct {
	// Link follows the Link header's rel="next" URL.
	Link bool `json:"link,omitempty"`
	// Next is the JSON path of the next page's cursor in a reply; an
	// absent, null or empty cursor ends the list. A cursor that is a URL
	// (absolute, or a path from /) is read as it is; any other goes in
	// the query parameter Cursor.
	Next string `json:"next,omitempty"`
	// Cursor is the query parameter of the cursor (default "cursor").
	Cursor string `json:"cursor,omitempty"`
	// Page is the query parameter of a page number, counted from First
	// (default 1).
	Page  string `json:"page,omitempty"`
	First int    `json:"first,omitempty"`
	// Offset is the query parameter of how many objects to skip.
	Offset string `json:"offset,omitempty"`
	// Size is the page size: sent in SizeParam when it is set, and a
	// page with fewer objects is the last (without Size, an empty page
	// is).
	Size      int    `json:"size,omitempty"`
	SizeParam string `json:"size_param,omitempty"`
	// Max bounds the pages one read follows (default DefaultMaxPages). A
	// read that stops there says so: Found.Partial, Detail["partial"], and
	// the observer's Stats and Summary.
	Max int `json:"max,omitempty"`
}

// DefaultMaxPages is the default Pages.Max.
const DefaultMaxPages = 20

func (p Pages) validate() error {
	n := 0
	for _, on := range []bool{p.Link, p.Next != "", p.Page != "", p.Offset != ""} {
		if on {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("pages: choose one of link, next, page or offset")
	case p.Max < 0 || p.Size < 0:
		return errors.New("pages: max and size are not negative")
	case p.SizeParam != "" && p.Size == 0:
		return fmt.Errorf("pages: size_param %q needs size, the page size to ask for", p.SizeParam)
	}
	return nil
}

func (p Pages) fill() Pages {
	if p.Max == 0 {
		p.Max = DefaultMaxPages
	}
	if p.Next != "" && p.Cursor == "" {
		p.Cursor = "cursor"
	}
	if p.Page != "" && p.First == 0 {
		p.First = 1
	}
	if p.Link || p.Next != "" || p.Page != "" || p.Offset != "" {
		return p
	}
	p.Max = 1 << 30 // one page: nothing to follow, nothing to stop at
	return p
}

// url is the URL of page number page (from 0) of the list at u, seen
// objects into it.
func (p Pages) url(u string, page, seen int) (string, error) {
	set := map[string]string{}
	if p.SizeParam != "" {
		set[p.SizeParam] = strconv.Itoa(p.Size)
	}
	switch {
	case p.Page != "":
		set[p.Page] = strconv.Itoa(p.First + page)
	case p.Offset != "":
		set[p.Offset] = strconv.Itoa(seen)
	}
	if len(set) == 0 {
		return u, nil
	}
	return withQuery(u, set)
}

// next returns the URL of the page after the one read from u ("" at the
// end of the list), which held n objects.
func (p Pages) next(u string, resp *http.Response, doc any, n int) (string, error) {
	switch {
	case p.Link:
		ref := nextLink(resp.Header.Values("Link"))
		if ref == "" {
			return "", nil
		}
		return resolve(u, ref)
	case p.Next != "":
		v, ok := Lookup(doc, p.Next)
		c := scalar(v)
		if !ok || c == "" {
			return "", nil
		}
		if strings.HasPrefix(c, "/") || strings.HasPrefix(c, "http://") || strings.HasPrefix(c, "https://") {
			return resolve(u, c)
		}
		return withQuery(u, map[string]string{p.Cursor: c})
	case p.Page != "", p.Offset != "":
		if n == 0 || (p.Size > 0 && n < p.Size) {
			return "", nil
		}
		return u, nil // url() sets the next number
	}
	return "", nil
}

// withQuery sets query parameters of u.
func withQuery(u string, set map[string]string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("read-back url: %w", err)
	}
	q := pu.Query()
	for k, v := range set {
		q.Set(k, v)
	}
	pu.RawQuery = q.Encode()
	return pu.String(), nil
}

// resolve reads ref relative to the page it came from.
func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("next page %q: %w", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}

// nextLink returns the target of the rel="next" link in Link header
// values (RFC 8288): `<https://api/x?page=2>; rel="next", <…>; rel="last"`.
// A rel may list several relation types; names are case-insensitive.
func nextLink(values []string) string {
	for _, v := range values {
		for len(v) > 0 {
			start := strings.IndexByte(v, '<')
			if start < 0 {
				break
			}
			end := strings.IndexByte(v[start:], '>')
			if end < 0 {
				break
			}
			target := v[start+1 : start+end]
			rest := v[start+end+1:]
			params := rest
			if i := strings.IndexByte(rest, '<'); i >= 0 {
				params = rest[:i]
			}
			for _, param := range strings.Split(params, ";") {
				name, val, ok := strings.Cut(strings.TrimSpace(param), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				val = strings.Trim(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), ",")), `"`)
				for _, rel := range strings.Fields(val) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
			v = rest
		}
	}
	return ""
}

// Validate says what is wrong with p: two ways of paging at once, a
// negative size or limit, a size parameter without a size.
func (p Pages) Validate() error { return p.validate() }
