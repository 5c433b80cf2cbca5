package redis

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/idemcheck/idemcheck/deps"
)

// The protocol's bounds, as Redis itself sets them: a line (an inline
// command, a simple reply, a header) fits in lineLimit bytes, and replies
// nest at most maxDepth deep.
const (
	lineLimit  = 64 << 10
	maxDepth   = 64
	maxArgs    = 1 << 20
	keptBuffer = 64 << 10
)

// command is one command read from the target.
type command struct {
	raw      []byte   // as read, when not streamed
	args     [][]byte // slices of raw (or, streamed, of what was read whole)
	streamed bool     // too large to read whole: already forwarded
}

// name returns the command's name in upper case, or "".
func (c *command) name() string {
	if len(c.args) == 0 {
		return ""
	}
	return string(bytes.ToUpper(c.args[0]))
}

// arg returns argument i in upper case, or "".
func (c *command) arg(i int) string {
	if i >= len(c.args) {
		return ""
	}
	return string(bytes.ToUpper(c.args[i]))
}

// commandReader reads the target's commands: arrays of bulk strings, and
// inline commands.
type commandReader struct {
	br  *bufio.Reader
	buf []byte
	max int
}

func newCommandReader(r io.Reader, max int) *commandReader {
	return &commandReader{br: bufio.NewReaderSize(r, lineLimit), max: max}
}

// read reads one command. A command whose arguments would exceed max bytes
// is forwarded to w as it is read (streamed), with the arguments read
// before that kept.
func (r *commandReader) read(w io.Writer) (*command, error) {
	first, err := r.br.Peek(1)
	if err != nil {
		return nil, err
	}
	raw := r.buf[:0]
	if first[0] != '*' {
		line, err := readLine(r.br, "target")
		if err != nil {
			return nil, err
		}
		raw = append(raw, line...)
		r.keep(raw)
		return &command{raw: raw, args: bytes.Fields(raw)}, nil
	}
	line, err := readLine(r.br, "target")
	if err != nil {
		return nil, err
	}
	raw = append(raw, line...)
	n, err := parseCount(line, "target")
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		// An empty or null array: Redis reads it as no command and does
		// not reply.
		r.keep(raw)
		return &command{raw: raw}, nil
	}
	if n > maxArgs {
		return nil, fmt.Errorf("%w: a command of %d arguments, over Redis's %d", deps.ErrClientProtocol, n, maxArgs)
	}
	offsets := make([][2]int, 0, min(n, 16))
	for i := 0; i < n; i++ {
		line, err := readLine(r.br, "target")
		if err != nil {
			return nil, err
		}
		if line[0] != '$' {
			return nil, fmt.Errorf("%w: a command's argument starts with %q, where Redis expects '$'", deps.ErrClientProtocol, line[0])
		}
		size, err := parseCount(line, "target")
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%w: a bad argument length %q", deps.ErrClientProtocol, bytes.TrimSpace(line))
		}
		if len(raw)+len(line)+size+2 > r.max {
			cmd := &command{streamed: true}
			for _, o := range offsets {
				cmd.args = append(cmd.args, append([]byte(nil), raw[o[0]:o[1]]...))
			}
			return cmd, r.stream(w, append(raw, line...), size, n-i-1)
		}
		raw = append(raw, line...)
		start := len(raw)
		raw = slices.Grow(raw, size+2)[:start+size+2]
		if _, err := io.ReadFull(r.br, raw[start:]); err != nil {
			return nil, err
		}
		if raw[len(raw)-2] != '\r' || raw[len(raw)-1] != '\n' {
			return nil, fmt.Errorf("%w: an argument not followed by CRLF", deps.ErrClientProtocol)
		}
		offsets = append(offsets, [2]int{start, start + size})
	}
	r.keep(raw)
	cmd := &command{raw: raw, args: make([][]byte, len(offsets))}
	for i, o := range offsets {
		cmd.args[i] = raw[o[0]:o[1]]
	}
	return cmd, nil
}

// keep keeps raw's buffer for the next command, unless it grew large.
func (r *commandReader) keep(raw []byte) {
	if cap(raw) <= keptBuffer {
		r.buf = raw[:0]
	}
}

// stream forwards head, then an argument of size bytes, then the
// remaining arguments, without holding them.
func (r *commandReader) stream(w io.Writer, head []byte, size, remaining int) error {
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.CopyN(w, r.br, int64(size)+2); err != nil {
		return err
	}
	for range remaining {
		line, err := readLine(r.br, "target")
		if err != nil {
			return err
		}
		size, err := parseCount(line, "target")
		if err != nil || line[0] != '$' || size < 0 {
			return fmt.Errorf("%w: a bad argument header %q", deps.ErrClientProtocol, bytes.TrimSpace(line))
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		if _, err := io.CopyN(w, r.br, int64(size)+2); err != nil {
			return err
		}
	}
	return nil
}

// readLine reads a line through its "\r\n" (kept); it is valid until the
// next read.
func readLine(br *bufio.Reader, side string) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("%w: the %s sent a line longer than %d bytes", protocolErr(side), side, lineLimit)
	}
	if err != nil {
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: the %s ended a line with a bare LF", protocolErr(side), side)
	}
	return line, nil
}

// parseCount parses the number after a line's type byte.
func parseCount(line []byte, side string) (int, error) {
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil {
		return 0, fmt.Errorf("%w: the %s sent %q where Redis sends a count", protocolErr(side), side, bytes.TrimSpace(line))
	}
	return n, nil
}

func protocolErr(side string) error {
	if side == "database" {
		return deps.ErrUpstreamProtocol
	}
	return deps.ErrClientProtocol
}

// isReplyType says whether b starts a RESP2 or RESP3 reply.
func isReplyType(b byte) bool {
	return bytes.IndexByte([]byte("+-:$*_,#!=(%~|>"), b) >= 0
}

// copyReply copies the rest of a reply whose first line is line (already
// read) from br to w, streaming bulk strings, and reading nested replies.
func copyReply(w io.Writer, br *bufio.Reader, line []byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: replies nested over %d deep", deps.ErrUpstreamProtocol, maxDepth)
	}
	typ := line[0]
	if !isReplyType(typ) {
		return fmt.Errorf("%w: a reply starting with %q; is it Redis?", deps.ErrUpstreamProtocol, typ)
	}
	if _, err := w.Write(line); err != nil {
		return err
	}
	switch typ {
	case '$', '!', '=': // bulk string, bulk error, verbatim string
		n, err := parseCount(line, "database")
		if err != nil || n < 0 {
			return err
		}
		_, err = io.CopyN(w, br, int64(n)+2)
		return err
	case '*', '~', '>', '%', '|': // array, set, push, map, attribute
		n, err := parseCount(line, "database")
		if err != nil || n < 0 {
			return err
		}
		if typ == '%' || typ == '|' {
			n *= 2
		}
		if typ == '|' {
			n++ // an attribute comes before the reply it annotates
		}
		for range n {
			next, err := readLine(br, "database")
			if err != nil {
				return err
			}
			if err := copyReply(w, br, next, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
