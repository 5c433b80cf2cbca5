package redis

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// maxBulk bounds one bulk string as the proxy reads it.
const maxBulk = 64 << 20

// maxElems bounds the elements of one aggregate.
const maxElems = 1 << 20

// maxDepth bounds the nesting of aggregates.
const maxDepth = 32

// value is one RESP2 or RESP3 value: its type byte, its text (simple
// strings, numbers, bulk strings), and its elements (arrays, sets, pushes;
// maps as key, value, key, value…).
type value struct {
	typ   byte
	str   []byte
	null  bool
	elems []value
}

// reader reads RESP values and keeps the raw bytes of the current one.
type reader struct {
	r   *bufio.Reader
	raw bytes.Buffer
}

// next reads one value and returns it with its raw bytes (valid until the
// next call).
func (rd *reader) next() (value, []byte, error) {
	rd.raw.Reset()
	v, err := rd.value(0)
	return v, rd.raw.Bytes(), err
}

func (rd *reader) line() ([]byte, error) {
	l, err := rd.r.ReadSlice('\n')
	if err != nil {
		if err == bufio.ErrBufferFull {
			return nil, fmt.Errorf("redis proxy: a protocol line longer than %d bytes", rd.r.Size())
		}
		return nil, err
	}
	rd.raw.Write(l)
	return bytes.TrimRight(l, "\r\n"), nil
}

func (rd *reader) value(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, fmt.Errorf("redis proxy: values nested deeper than %d", maxDepth)
	}
	l, err := rd.line()
	if err != nil {
		return value{}, err
	}
	if len(l) == 0 {
		return value{typ: ' '}, nil // an empty inline command
	}
	v := value{typ: l[0]}
	body := l[1:]
	switch v.typ {
	case '+', '-', ':', ',', '#', '(', '_':
		v.str = append([]byte(nil), body...)
		v.null = v.typ == '_'
		return v, nil
	case '$', '!', '=':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 || n > maxBulk {
			return v, fmt.Errorf("redis proxy: bulk length %q; expected -1 to %d", body, maxBulk)
		}
		if n == -1 {
			v.null = true
			return v, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rd.r, buf); err != nil {
			return v, err
		}
		rd.raw.Write(buf)
		v.str = buf[:n]
		return v, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 || n > maxElems {
			return v, fmt.Errorf("redis proxy: aggregate length %q; expected -1 to %d", body, maxElems)
		}
		if n == -1 {
			v.null = true
			return v, nil
		}
		if v.typ == '%' || v.typ == '|' {
			n *= 2
		}
		v.elems = make([]value, 0, min(n, 1024))
		for range n {
			e, err := rd.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
		}
		if v.typ == '|' {
			// An attribute precedes the value it describes: that value
			// is the reply.
			return rd.value(depth + 1)
		}
		return v, nil
	default:
		// An inline command: words separated by spaces.
		v.typ = 'i'
		for _, w := range bytes.Fields(l) {
			v.elems = append(v.elems, value{typ: '$', str: append([]byte(nil), w...)})
		}
		return v, nil
	}
}

// args returns a command's arguments.
func (v value) args() [][]byte {
	out := make([][]byte, 0, len(v.elems))
	for _, e := range v.elems {
		out = append(out, e.str)
	}
	return out
}

// encodeCommand writes args as a RESP array of bulk strings.
func encodeCommand(args [][]byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n", len(a))
		b.Write(a)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// isStreamID reports whether s looks like a stream entry id (ms-seq).
func isStreamID(s []byte) bool {
	i := bytes.IndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for j, c := range s {
		if j != i && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// entry is one stream entry found in a reply.
type entry struct {
	id     string
	fields map[string]string
}

// entries finds the stream entries in a reply of XREADGROUP, XCLAIM or
// XAUTOCLAIM, whatever its RESP version: every two-element aggregate whose
// first element is an entry id and whose second is the field list.
func entries(v value, out []entry) []entry {
	if len(v.elems) == 2 && isStreamID(v.elems[0].str) && (v.elems[1].typ == '*' || v.elems[1].typ == '%') && !v.elems[1].null {
		e := entry{id: string(v.elems[0].str), fields: map[string]string{}}
		f := v.elems[1].elems
		for i := 0; i+1 < len(f); i += 2 {
			e.fields[string(f[i].str)] = string(f[i+1].str)
		}
		return append(out, e)
	}
	for _, e := range v.elems {
		out = entries(e, out)
	}
	return out
}
