package config

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// Load reads and parses the configuration file at path with the builtin
// registry; see Registry.Load.
func Load(path string) (*File, error) { return Builtin().Load(path) }

// LoadContext is Load, given up when ctx is done; see Registry.LoadContext.
func LoadContext(ctx context.Context, path string) (*File, error) {
	return Builtin().LoadContext(ctx, path)
}

// Parse parses a configuration with the builtin registry; see
// Registry.Parse.
func Parse(name string, data []byte) (*File, error) { return Builtin().Parse(name, data) }

// Load reads and parses the configuration file at path; see Parse. An
// error reading the file names the file and wraps the cause, so that
// errors.Is(err, fs.ErrNotExist) works.
func (r *Registry) Load(path string) (*File, error) {
	return r.LoadContext(context.Background(), path)
}

// LoadContext is Load, given up when ctx is done: the wait for a FIFO's
// writer, or for the rest of what it writes, ends then with ctx's error
// (a signal that cancels ctx is not held for readTimeout).
func (r *Registry) LoadContext(ctx context.Context, path string) (*File, error) {
	data, err := readCapped(ctx, path, MaxConfigSize)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in our message
		}
		return nil, fmt.Errorf("%s: cannot read the configuration: %w", path, err)
	}
	return r.Parse(path, data)
}

// readTimeout bounds the wait for a FIFO's writer, and the reading of a
// configuration that is not a regular file.
var readTimeout = 10 * time.Second

// MaxConfigSize bounds the configuration file Load reads: a real one is a
// few KiB, and a huge one would cost its size many times over to parse.
const MaxConfigSize = 4 << 20

// readCapped reads path, refusing a file larger than limit without
// reading more than limit+1 bytes of it.
//
// A FIFO (a shell's process substitution, -c <(…), or one made with
// mkfifo) is waited on for a writer, and read as it is written, for at
// most readTimeout each: a blocked open or read would hold the program,
// deaf to signals, before it has started.
func readCapped(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := openReadable(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_ = f.SetReadDeadline(time.Now().Add(readTimeout)) // a regular file has none
	// ctx done: the read ends at once (a deadline in the past).
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("not read whole within %s (a FIFO whose writer never finished)", readTimeout)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("the file is larger than %d MiB, more than any configuration needs: is it the right file?", limit>>20)
	}
	return data, nil
}

// openReadable opens path for reading. A FIFO's open, which waits for a
// writer, runs aside and is given up after readTimeout, or when ctx is
// done: a writer that opens and closes at once then releases it.
func openReadable(ctx context.Context, path string) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		// O_NONBLOCK: should it have become a FIFO since, its open must
		// not wait either (it then reads as empty).
		return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	timer := time.NewTimer(readTimeout)
	defer timer.Stop()
	var gaveUp error
	select {
	case o := <-ch:
		return o.f, o.err
	case <-timer.C:
		gaveUp = fmt.Errorf("a FIFO no writer opened within %s", readTimeout)
	case <-ctx.Done():
		gaveUp = ctx.Err()
	}
	// A writer of our own releases the open (once it has begun: until
	// then there is no reader for the writer to open against, and it is
	// tried again); what it opened is closed before we return, so that a
	// writer that comes next finds no reader but the one it is meant for.
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	release := time.NewTimer(time.Second)
	defer release.Stop()
	var retry <-chan time.Time = tick.C // until our writer is open
	for released := false; !released; {
		if retry != nil {
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer w.Close()
				retry = nil
			}
		}
		select {
		case o := <-ch:
			if o.f != nil {
				_ = o.f.Close()
			}
			return nil, gaveUp
		case <-retry:
		case <-release.C:
			released = true
		}
	}
	go func() { // the open returns once a writer comes
		if o := <-ch; o.f != nil {
			_ = o.f.Close()
		}
	}()
	return nil, gaveUp
}

// Parse parses, validates and fills in the defaults of a configuration;
// name is the file name that errors report. The file is checked first by
// the registry's JSON Schema (see Schema), then decoded into the structs
// of its fakes and of its targets' kinds, unknown fields refused, and
// then checked by hand for what a schema cannot say, its faults' settings
// by the registry's faults. When the
// configuration is invalid, Parse returns a nil File and an Errors value
// listing every problem found, sorted by position. A YAML syntax error is
// reported alone, since nothing after it can be read.
func (r *Registry) Parse(name string, data []byte) (*File, error) {
	root, errs := parseYAML(name, data)
	if root == nil && len(errs) > 0 {
		return nil, errs.asError()
	}
	p, err := r.newParser(name, root, errs)
	if err != nil {
		return nil, err
	}
	f, errs := p.file()
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	f.applyDefaults()
	f.name, f.pos = name, p.tree.pos
	f.base = baseDir(name)
	sum := sha256.Sum256(data)
	f.digest = hex.EncodeToString(sum[:])
	return f, nil
}

// Digest returns the SHA-256 of the configuration's bytes, in hex: what
// tells the results of two runs made from different files apart.
func (f *File) Digest() string { return f.digest }

// Source returns the name the configuration was loaded under: the path
// given to Load, or the name given to Parse. Relative paths in the file,
// such as Start.Dir, are taken from its directory (see BaseDir).
func (f *File) Source() string { return f.name }

// Errorf returns an *Error located at the value that path names in the
// file (or, if that value was not written, at the nearest one that
// contains it), for problems that are found after Parse. For example a
// program that holds a fault's setting against its target can report
// f.Errorf("faults[1].timeout", "must be shorter than the target's timeout").
func (f *File) Errorf(path, format string, args ...any) *Error {
	at := lookupPos(f.pos, path)
	return &Error{File: f.name, Line: at.line, Column: at.col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// baseDir is the directory of the file called name, made absolute now, so
// that a later change of working directory does not move it.
func baseDir(name string) string {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return filepath.Dir(name)
	}
	return dir
}

// BaseDir returns the directory that relative paths in the file are taken
// from: the absolute directory of the file given to Load or Parse. It is
// "" for a File that was not parsed (built in Go), whose paths are taken
// from the working directory.
func (f *File) BaseDir() string { return f.base }

// lookupPos returns the position recorded for path or for its nearest
// ancestor that has one: a missing field is reported where its parent is.
func lookupPos(m map[string]pos, path string) pos {
	for p, ok := path, true; ok; p, ok = section.PathParent(p) {
		if at, found := m[p]; found {
			return at
		}
	}
	return pos{}
}

// parseYAML parses data into a node tree and returns its root value, or
// nil when the file holds no document. A syntax error comes back as an
// Error; so does a second document, which idemcheck would otherwise
// silently ignore.
func parseYAML(name string, data []byte) (root *yaml.Node, errs Errors) {
	defer func() {
		// yaml.v3 turns its own failures into errors; anything else is a
		// bug in it, and a bad file must still not crash idemcheck.
		if r := recover(); r != nil {
			root, errs = nil, Errors{{File: name, Msg: fmt.Sprintf("the YAML parser failed on this file: %v", r)}}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, Errors{syntaxError(name, data, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		errs = append(errs, &Error{File: name, Line: extra.Line, Column: extra.Column,
			Msg: "a second YAML document starts here, but idemcheck reads one document per file: remove the \"---\" line or move what follows to another file"})
	case !errors.Is(err, io.EOF):
		errs = append(errs, syntaxError(name, data, err))
	}
	if len(doc.Content) == 0 {
		return nil, errs
	}
	return doc.Content[0], errs
}

var (
	yamlLine      = lazyregexp.New(`^yaml: line (\d+): `)
	unknownAnchor = lazyregexp.New(`^yaml: unknown anchor '(.*)' referenced$`)
)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). yaml.v3 v3.0.1 reports their lines counted from 0; see
// (*parser).fail in its decode.go.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntaxError turns a yaml.v3 error into an *Error with the best line and
// column it can find. yaml.v3 puts the line in its message, but not the
// column (syntaxColumn finds it in the line); it
// counts from 0 for parser errors and from 1 for scanner errors, and gives
// no line for errors on the first line, for bytes it refuses to read and
// for unknown aliases.
func syntaxError(name string, data []byte, err error) *Error {
	msg := err.Error()
	e := &Error{File: name, Line: 1}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if parserProblems[msg] {
			e.Line++
		}
	} else if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			e.Line, e.Column = lineCol(data[:i])
		}
		msg = fmt.Sprintf("alias *%s refers to no anchor: define it first with &%s", m[1], m[1])
	} else if line, col, ok := firstUnreadable(data); ok {
		e.Line, e.Column = line, col
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if e.Column == 0 {
		e.Column = syntaxColumn(lineText(data, e.Line), msg)
	}
	e.Msg = "invalid YAML: " + msg
	return e
}

// lineText returns the 1-based line n of data, without its line break,
// or "" when data has no such line.
func lineText(data []byte, n int) string {
	for ; n > 1; n-- {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return ""
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return strings.TrimSuffix(string(data), "\r")
}

// syntaxColumn finds, in the line yaml.v3 names, the column of the
// character its message is about: yaml.v3 knows the column but does not
// say it. Where the message names no character, it is the line's first
// one that is not a space: where the construct that fails begins. 0 for
// a blank line.
func syntaxColumn(line, msg string) int {
	col := func(i int) int { return 1 + utf8.RuneCountInString(line[:i]) }
	first := strings.IndexFunc(line, func(r rune) bool { return r != ' ' })
	if first < 0 {
		return 0
	}
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		// The second "key:" on the line is the one that cannot be.
		seen := 0
		for i := 0; i < len(line); i++ {
			if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
				if seen++; seen == 2 {
					return col(i)
				}
			}
		}
	case strings.Contains(msg, "tab character"):
		if i := strings.IndexByte(line, '\t'); i >= 0 {
			return col(i)
		}
	case strings.Contains(msg, "cannot start any token"):
		if i := strings.IndexAny(line[first:], "\t@`"); i >= 0 {
			return col(first + i)
		}
	case strings.Contains(msg, "unknown escape character"):
		if i := strings.IndexByte(line, '\\'); i >= 0 {
			return col(i)
		}
	case strings.Contains(msg, "expected ',' or '}'"):
		if i := strings.LastIndexByte(line, '{'); i >= 0 {
			return col(i)
		}
	case strings.Contains(msg, "expected ',' or ']'"):
		if i := strings.LastIndexByte(line, '['); i >= 0 {
			return col(i)
		}
	}
	return col(first)
}

// lineCol returns the 1-based position just after prefix.
func lineCol(prefix []byte) (line, col int) {
	line = 1 + bytes.Count(prefix, []byte("\n"))
	return line, 1 + utf8.RuneCount(prefix[bytes.LastIndexByte(prefix, '\n')+1:])
}

// firstUnreadable finds the first byte that the YAML reader refuses:
// invalid UTF-8, or a control character other than tab and line breaks.
func firstUnreadable(data []byte) (line, col int, ok bool) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size <= 1,
			r < 0x20 && r != '\t' && r != '\n' && r != '\r',
			r == 0x7f, r == 0xfffe, r == 0xffff:
			return line, col, true
		case r == '\n':
			line, col = line+1, 1
		default:
			col++
		}
		data = data[size:]
	}
	return 0, 0, false
}
