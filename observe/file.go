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

// Find implements Finder: the items whose JSON holds marker.
func (ff *fileFinder) Find(_ context.Context, marker string) (Found, error) {
	items, absent, err := ff.read()
	if err != nil || absent {
		return Found{Absent: absentPath(absent, ff.f.Path)}, err
	}
	var out []Row
	for _, it := range items {
		if bytes.Contains(it.raw, []byte(marker)) {
			out = append(out, Row{ID: it.id})
		}
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
			r.IDs[i] = it.id
		}
	}
	return r, nil
}

func absentPath(absent bool, p string) string {
	if absent {
		return p
	}
	return ""
}

// read returns every item of the file or directory; absent is true when
// there is no such path yet.
func (ff *fileFinder) read() (items []item, absent bool, err error) {
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
func (ff *fileFinder) readFile(path, name string) ([]item, error) {
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
		doc, err := decodeJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s is not JSON: %v: %s", path, err, head(data))
		}
		return ff.itemsOf(path, doc, name)
	}
	var out []item
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxFileBytes)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		doc, err := decodeJSON(b)
		if err != nil {
			return nil, fmt.Errorf("%s line %d is not JSON: %v: %s", path, line, err, head(b))
		}
		got, err := ff.itemsOf(fmt.Sprintf("%s line %d", path, line), doc, name+":"+strconv.Itoa(line))
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, sc.Err()
}

// itemsOf lists the items of one document; where says where it is, for
// errors, and place prefixes positional identities.
func (ff *fileFinder) itemsOf(where string, doc any, place string) ([]item, error) {
	list, ok := Lookup(doc, ff.f.Items)
	if !ok {
		return nil, fmt.Errorf("%s has no %q", where, ff.f.Items)
	}
	arr, isList := list.([]any)
	switch {
	case list == nil:
		return nil, nil
	case !isList && ff.f.Items != "":
		return nil, fmt.Errorf("%s: %q is not a list", where, ff.f.Items)
	case !isList:
		arr = []any{list}
	}
	out := make([]item, 0, len(arr))
	for i, it := range arr {
		raw, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		id := place
		if isList || id == "" {
			id += "[" + strconv.Itoa(i) + "]"
		}
		if ff.f.ID != "" {
			v, ok := Lookup(it, ff.f.ID)
			if !ok || v == nil {
				return nil, fmt.Errorf("%s: item %d has no %q: %s", where, i, ff.f.ID, head(raw))
			}
			id = scalar(v)
		}
		out = append(out, item{id: id, raw: raw})
	}
	return out, nil
}
