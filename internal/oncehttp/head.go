package oncehttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// maxInformational bounds how many informational replies (1xx) may come
// before the final one.
const maxInformational = 8

// Caps on a reply's header section (its status line included): far above
// what services send (a few KiB, a few dozen lines), far below what would
// cost memory when a burst reads a reply per copy.
const (
	MaxHeaderBytes = 64 << 10
	MaxHeaderLines = 1000
)

// ErrHeaderTooLarge is the cause of the error of a reply whose header
// section goes over MaxHeaderBytes or MaxHeaderLines.
var ErrHeaderTooLarge = errors.New("the reply's header section is too large")

// headLimit sits between a connection and its reader. While armed, it
// lets through at most MaxHeaderBytes and counts the lines of the header
// section (up to the empty line that ends it) against MaxHeaderLines.
type headLimit struct {
	r     io.Reader
	armed bool
	bytes int // left to let through
	lines int // left to count
	// inHead: the end of the header section has not been seen yet.
	inHead bool
	// blank: the line in progress holds nothing but CR so far.
	blank bool
	over  error
}

// arm starts the caps for one header section.
func (l *headLimit) arm() {
	*l = headLimit{r: l.r, armed: true, bytes: MaxHeaderBytes, lines: MaxHeaderLines, inHead: true}
}

// disarm lifts the caps and returns the error of a section that went
// over them.
func (l *headLimit) disarm() error {
	l.armed = false
	return l.over
}

// maxPresize is the largest buffer ReadAll makes before the bytes come:
// a burst of 200 copies whose replies announce a MiB each and send
// nothing holds 200 times this.
const maxPresize = 64 << 10

// replyReaders are the read buffers of ReadWholeReply, each given back
// once its reply is read.
var replyReaders sync.Pool // of *bufio.Reader

// ReadWholeReply reads the final reply to req from r, a connection that
// nothing else reads, as Client does (informational replies, 1xx, are
// skipped, up to 8, and each header section is held to the caps), then
// its body up to limit bytes (see ReadAll; a longer body is cut at limit,
// and its rest left unread). A burst, which writes its copies itself,
// reads their replies so. An error reading the header section returns a
// nil reply; one reading the body returns the reply and the body read so
// far. The reply's Body is spent: the bytes are in body.
func ReadWholeReply(r io.Reader, req *http.Request, limit int) (resp *http.Response, body []byte, err error) {
	lim := &headLimit{r: r}
	br, _ := replyReaders.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReader(lim)
	} else {
		br.Reset(lim)
	}
	defer func() {
		br.Reset(nil)
		replyReaders.Put(br)
	}()
	resp, err = readFinal(br, lim, req, nil)
	if err != nil {
		return nil, nil, err
	}
	body, err = ReadAll(resp.Body, resp.ContentLength, limit)
	resp.Body = http.NoBody
	return resp, body, err
}

// ReadAll reads r to its end, or up to limit bytes, into a buffer sized
// by hint (the announced length, -1 if unknown) when it is known: a body
// whose length was announced is read into one buffer of its size, with a
// byte to spare to see its end, up to maxPresize; past that, the buffer
// grows with the bytes that come, so that a length announced and never
// sent costs nothing.
func ReadAll(r io.Reader, hint int64, limit int) ([]byte, error) {
	size := 512
	if hint >= 0 {
		size = int(min(hint, int64(limit), maxPresize)) + 1
	}
	b := make([]byte, 0, min(size, limit+1))
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := b[len(b):min(cap(b), limit)]
		n, err := r.Read(room)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// readFinal reads the final reply's header section from br, which reads
// through lim, each section within the caps. A reply that wire takes (see
// readResponse) ends it with a nil reply and no error.
func readFinal(br *bufio.Reader, lim *headLimit, req *http.Request, wire func(*bufio.Reader) bool) (*http.Response, error) {
	for i := 0; ; i++ {
		lim.arm()
		resp, err := readResponse(br, req, wire)
		if over := lim.disarm(); over != nil {
			return nil, over
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("the connection ended before a whole reply: %w", err)
		}
		if err != nil || resp == nil {
			return nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
		if i == maxInformational {
			return nil, fmt.Errorf("more than %d informational (1xx) replies before the final one", maxInformational)
		}
	}
}

func (l *headLimit) Read(p []byte) (int, error) {
	if !l.armed {
		return l.r.Read(p)
	}
	if l.over != nil {
		return 0, l.over
	}
	if l.bytes <= 0 {
		l.over = fmt.Errorf("%w: over %d KiB", ErrHeaderTooLarge, MaxHeaderBytes>>10)
		return 0, l.over
	}
	if len(p) > l.bytes {
		p = p[:l.bytes]
	}
	n, err := l.r.Read(p)
	l.bytes -= n
	if l.inHead {
		l.scan(p[:n])
	}
	if l.over != nil {
		return n, l.over
	}
	return n, err
}

// scan counts the lines in b up to the end of the header section.
func (l *headLimit) scan(b []byte) {
	for l.inHead && len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		if len(bytes.Trim(seg, "\r")) > 0 {
			l.blank = false
		}
		if i < 0 {
			return
		}
		if l.blank {
			l.inHead = false // an empty line: the section is over
			return
		}
		l.lines--
		if l.lines < 0 {
			l.over = fmt.Errorf("%w: over %d lines", ErrHeaderTooLarge, MaxHeaderLines)
			return
		}
		l.blank = true
		b = b[i+1:]
	}
}
