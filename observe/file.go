package observe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// File reads effects a target keeps in files: a JSON document (a
// knowledge graph saved whole), a JSONL file (a key-and-result store, one
// record a line) or a directory of such files (one per object). The items
// holding the marker are the intent's effects.
//
//	{path: "{{state_dir}}/memory.json"}                       a JSON list
//	{path: "{{state_dir}}/graph.json", items: entities, id: name}
//	{path: "{{state_dir}}/results.jsonl"}                     one item a line
//	{path: "{{state_dir}}/orders", match: "*.json"}           one item a file
type File struct {
	// Path is a file or a directory; it may use {{state_dir}} and
	// {{env.NAME}}.
	Path string `json:"path"`
	// Format is "json" (one document a file) or "jsonl" (one a line);
	// default by the file's extension: .jsonl and .ndjson are JSONL.
	Format string `json:"format,omitempty"`
	// Items is the JSON path of the list of items in a document ("" for
	// the document itself: its items when it is a list, else it is one
	// item).
	Items string `json:"items,omitempty"`
	// ID is the JSON path of an item's identity; "" gives its place: its
	// index in a list ("[3]"), its line in a JSONL file (":4"), after its
	// file's name in a directory ("a.json[3]"). Two items with one
	// identity are two effects ("k", "k#2").
	ID string `json:"id,omitempty"`
	// Match is the pattern of the file names read in a directory
	// (default "*": every regular file).
	Match string `json:"match,omitempty"`
}

var _ Source = File{}

// Type implements Source.
func (File) Type() string { return "file" }

// EffectKind implements EffectKind: an item.
func (File) EffectKind() string { return "item" }

// Validate implements Validator.
func (f File) Validate() error {
	if f.Path == "" {
		return errors.New("path: required: the file or directory the target writes, e.g. {{state_dir}}/store.json")
	}
	switch f.Format {
	case "", "json", "jsonl":
	default:
		return fmt.Errorf("format %q: expected json or jsonl", f.Format)
	}
	if _, err := filepath.Match(f.Match, ""); err != nil {
		return fmt.Errorf("match %q: %w", f.Match, err)
	}
	return nil
}

// Open implements Source.
func (f File) Open(_ context.Context, w Where) (Finder, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	p, err := w.Expand(f.Path)
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	if strings.Contains(p, "{{marker}}") {
		return nil, errors.New("path: {{marker}} cannot be in a path: the items holding it are found inside")
	}
	f.Path = p
	if f.Match == "" {
		f.Match = "*"
	}
	return &fileFinder{f: f}, nil
}

type fileFinder struct{ f File }

// Limits of what one read takes in.
const (
	maxFileBytes = 64 << 20
	maxDirFiles  = 10_000
)

// Find implements Finder: the items whose JSON holds marker. Only they
// are decoded, for their identity.
func (ff *fileFinder) Find(_ context.Context, marker string) (Found, error) {
	items, absent, err := ff.read()
	if err != nil || absent {
		return Found{Absent: absentPath(absent, ff.f.Path)}, err
	}
	var out []Row
	for _, it := range items {
		if !bytes.Contains(it.raw, []byte(marker)) {
			continue
		}
		id, err := ff.identity(it)
		if err != nil {
			return Found{}, err
		}
		out = append(out, Row{ID: id})
	}
	return Found{Rows: out}, nil
}

// Measure implements Measurer: every item, or how many there are.
func (ff *fileFinder) Measure(_ context.Context, rows bool) (Reading, error) {
	items, _, err := ff.read()
	if err != nil {
		return Reading{}, err
	}
	r := Reading{Rows: rows, Number: float64(len(items))}
	if rows {
		r.IDs = make([]string, len(items))
		for i, it := range items {
			if r.IDs[i], err = ff.identity(it); err != nil {
				return Reading{}, err
			}
		}
	}
	return r, nil
}

// fileItem is one item as it is written in its file.
type fileItem struct {
	raw   json.RawMessage
	where string // the file (and line), for errors
	place string // the positional identity
	index int
}

// identity reads an item's identity at ID, or gives its place.
func (ff *fileFinder) identity(it fileItem) (string, error) {
	if ff.f.ID == "" {
		return it.place, nil
	}
	doc, err := decodeJSON(it.raw)
	if err != nil {
		return "", fmt.Errorf("%s: item %d: %w", it.where, it.index, err)
	}
	id, ok := identityAt(doc, ff.f.ID)
	if !ok {
		err := fmt.Errorf("%s: item %d has no %q: %s", it.where, it.index, ff.f.ID, head(it.raw))
		if lists := listFields(doc); ff.f.Items == "" && len(lists) > 0 {
			// The whole document was taken as one item.
			err = fmt.Errorf("%w; the document is one object holding lists (%s): name the list its items are in with items:, such as items: %s", err, strings.Join(lists, ", "), lists[0])
		}
		return "", err
	}
	return id, nil
}

// listFields are the names of doc's fields that hold lists, sorted, when
// doc is an object.
func listFields(doc any) []string {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, v := range m {
		if _, ok := v.([]any); ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func absentPath(absent bool, p string) string {
	if absent {
		return p
	}
	return ""
}

// read returns every item of the file or directory; absent is true when
// there is no such path yet.
func (ff *fileFinder) read() (items []fileItem, absent bool, err error) {
	fi, err := os.Stat(ff.f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.IsDir() {
		items, err := ff.readFile(ff.f.Path, "")
		return items, false, err
	}
	entries, err := os.ReadDir(ff.f.Path)
	if err != nil {
		return nil, false, err
	}
	var names []string
	for _, e := range entries {
		if ok, _ := filepath.Match(ff.f.Match, e.Name()); ok && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	if len(names) > maxDirFiles {
		return nil, false, fmt.Errorf("%s holds more than %d files: narrow it with match", ff.f.Path, maxDirFiles)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := ff.readFile(filepath.Join(ff.f.Path, n), n)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while the directory was read
		}
		if err != nil {
			return nil, false, err
		}
		items = append(items, got...)
	}
	return items, false, nil
}

// readFile reads the items of one file; name prefixes positional
// identities in a directory.
func (ff *fileFinder) readFile(path, name string) ([]fileItem, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFileBytes>>20)
	}
	format := ff.f.Format
	if format == "" {
		format = "json"
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".jsonl" || ext == ".ndjson" {
			format = "jsonl"
		}
	}
	if format == "json" {
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, nil // created, not written yet
		}
		items, err := ff.itemsOf(path, data, name)
		if verr := validJSON(data, err); verr != nil {
			return nil, fmt.Errorf("%s is not JSON: %v: %s", path, verr, head(data))
		}
		return items, err
	}
	var out []fileItem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxFileBytes)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		got, err := ff.itemsOf(fmt.Sprintf("%s line %d", path, line), b, name+":"+strconv.Itoa(line))
		if verr := validJSON(b, err); verr != nil {
			return nil, fmt.Errorf("%s line %d is not JSON: %v: %s", path, line, verr, head(b))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, sc.Err()
}

// itemsOf lists the items of one document, as they are written: only
// the way to them is decoded. where says where the document is, for
// errors, and place prefixes positional identities.
func (ff *fileFinder) itemsOf(where string, doc []byte, place string) ([]fileItem, error) {
	cur := bytes.TrimSpace(doc)
	for _, part := range SplitPath(ff.f.Items) {
		next, ok := child(cur, part)
		if !ok {
			return nil, fmt.Errorf("%s has no %q", where, ff.f.Items)
		}
		cur = next
	}
	var arr []json.RawMessage
	isList := len(cur) > 0 && cur[0] == '['
	switch {
	case bytes.Equal(cur, []byte("null")):
		return nil, nil
	case isList:
		if err := json.Unmarshal(cur, &arr); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	case ff.f.Items != "":
		return nil, fmt.Errorf("%s: %q is not a list", where, ff.f.Items)
	default:
		if err := validJSON(cur, errOneItem); err != nil {
			return nil, err
		}
		arr = []json.RawMessage{cur}
	}
	out := make([]fileItem, len(arr))
	for i, raw := range arr {
		p := place
		if isList || p == "" {
			p += "[" + strconv.Itoa(i) + "]"
		}
		out[i] = fileItem{raw: raw, where: where, place: p, index: i}
	}
	return out, nil
}

// child is the value of a name in an object, or at an index in a list,
// of a JSON document known to be valid.
func child(doc []byte, part string) ([]byte, bool) {
	if len(doc) == 0 {
		return nil, false
	}
	switch doc[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(doc, &m) != nil {
			return nil, false
		}
		v, ok := m[part]
		return bytes.TrimSpace(v), ok
	case '[':
		i, err := strconv.Atoi(part)
		var a []json.RawMessage
		if err != nil || json.Unmarshal(doc, &a) != nil || i < 0 || i >= len(a) {
			return nil, false
		}
		return bytes.TrimSpace(a[i]), true
	}
	return nil, false
}

// errOneItem asks validJSON to check a document read as one item, which
// nothing else has parsed.
var errOneItem = errors.New("one item")

// validJSON says why b is not one JSON document, or nil. Reading the
// items parses what it reads; only when that failed (failed is not nil),
// or read nothing, is the whole document checked.
func validJSON(b []byte, failed error) error {
	if failed == nil {
		return nil
	}
	var raw json.RawMessage
	return json.Unmarshal(b, &raw)
}
