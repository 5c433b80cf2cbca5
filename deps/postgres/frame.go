package postgres

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/deps"
)

// maxWireBody is the largest body a message's length field (a signed
// 32-bit count that includes itself) can announce.
const maxWireBody = 0x7fffffff - 4

// keptBuffer is the largest body buffer a connection keeps between
// messages; a larger message gets a buffer of its own, dropped after it.
const keptBuffer = 64 << 10

// frames reads tagged messages (a type byte, a 4-byte length, a body)
// from one side of a connection. A body the proxy inspects is read into a
// buffer bounded by max; any other body is copied through without being
// held whole.
type frames struct {
	br   *bufio.Reader
	hdr  [5]byte
	buf  []byte
	max  int
	side string // "target" or "database", for errors
}

func newFrames(r io.Reader, max int, side string) *frames {
	return &frames{br: bufio.NewReaderSize(r, 32<<10), max: max, side: side}
}

// buffered says whether a whole message header is already read, so that
// the writer on the other side need not be flushed before the next read.
func (f *frames) buffered() int { return f.br.Buffered() }

// next reads the next message's header and returns its type and body
// length; with a length the protocol cannot have, it returns the type read
// and an error.
func (f *frames) next() (byte, int, error) {
	if _, err := io.ReadFull(f.br, f.hdr[:]); err != nil {
		return 0, 0, err
	}
	n := int(binary.BigEndian.Uint32(f.hdr[1:])) - 4
	if n < 0 || n > maxWireBody {
		return f.hdr[0], 0, fmt.Errorf("%w: the %s sent a %q message of length %d, outside 4..%d", protocolErr(f.side), f.side, f.hdr[0], n+4, maxWireBody+4)
	}
	return f.hdr[0], n, nil
}

// fits says whether a body of n bytes is small enough to inspect.
func (f *frames) fits(n int) bool { return n <= f.max }

// body reads a body of n bytes (n ≤ max); it is valid until the next call.
func (f *frames) body(n int) ([]byte, error) {
	if n > cap(f.buf) {
		b := make([]byte, n)
		if n <= keptBuffer {
			f.buf = b
		}
		_, err := io.ReadFull(f.br, b)
		return b, err
	}
	b := f.buf[:n]
	_, err := io.ReadFull(f.br, b)
	return b, err
}

// copyMessage writes the header just read and copies its body of n bytes
// to w without holding it.
func (f *frames) copyMessage(w io.Writer, n int) error {
	if _, err := w.Write(f.hdr[:]); err != nil {
		return err
	}
	_, err := io.CopyN(w, f.br, int64(n))
	return err
}

// writeMessage writes the header just read and body to w.
func (f *frames) writeMessage(w io.Writer, body []byte) error {
	if _, err := w.Write(f.hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

func protocolErr(side string) error {
	if side == "database" {
		return deps.ErrUpstreamProtocol
	}
	return deps.ErrClientProtocol
}
