package nats

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxPayload bounds one message's payload as the proxy reads it (the
// server's default max_payload is 1 MiB; headers come on top).
const maxPayload = 8 << 20

// frame is one protocol operation: its control line and, for PUB, HPUB,
// MSG and HMSG, its payload (headers included, trailing CRLF excluded).
type frame struct {
	line    []byte // the control line with its CRLF, as read
	op      string // upper-case verb
	subject string
	reply   string
	hdrLen  int // -1 without headers
	payload []byte
}

// readFrame reads one operation from r.
func readFrame(r *bufio.Reader) (*frame, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	f := &frame{line: append([]byte(nil), line...), hdrLen: -1}
	fields := bytes.Fields(line)
	if len(fields) == 0 {
		return f, nil
	}
	f.op = strings.ToUpper(string(fields[0]))
	args := fields[1:]
	var size int
	switch f.op {
	case "PUB": // PUB subject [reply] size
		if size, err = sizedArgs(f, args, 2, false); err != nil {
			return nil, err
		}
	case "HPUB": // HPUB subject [reply] hdrsize size
		if size, err = sizedArgs(f, args, 3, false); err != nil {
			return nil, err
		}
	case "MSG": // MSG subject sid [reply] size
		if size, err = sizedArgs(f, args, 3, true); err != nil {
			return nil, err
		}
	case "HMSG": // HMSG subject sid [reply] hdrsize size
		if size, err = sizedArgs(f, args, 4, true); err != nil {
			return nil, err
		}
	default:
		return f, nil
	}
	if size < 0 || size > maxPayload {
		return nil, fmt.Errorf("nats proxy: %s payload of %d bytes; expected 0 to %d", f.op, size, maxPayload)
	}
	f.payload = make([]byte, size+2)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return nil, err
	}
	f.payload = f.payload[:size]
	return f, nil
}

// sizedArgs parses the arguments of a verb that carries a payload: min is
// their number without a reply subject; withSID says that the second one
// is a subscription id. It returns the payload size.
func sizedArgs(f *frame, args [][]byte, min int, withSID bool) (int, error) {
	if len(args) != min && len(args) != min+1 {
		return 0, fmt.Errorf("nats proxy: %s with %d arguments; expected %d or %d", f.op, len(args), min, min+1)
	}
	f.subject = string(args[0])
	rest := args[1:]
	if withSID {
		rest = rest[1:]
	}
	if len(args) == min+1 {
		f.reply = string(rest[0])
		rest = rest[1:]
	}
	if len(rest) == 2 {
		h, err := strconv.Atoi(string(rest[0]))
		if err != nil {
			return 0, fmt.Errorf("nats proxy: %s header size %q: %v", f.op, rest[0], err)
		}
		f.hdrLen = h
		rest = rest[1:]
	}
	n, err := strconv.Atoi(string(rest[0]))
	if err != nil {
		return 0, fmt.Errorf("nats proxy: %s size %q: %v", f.op, rest[0], err)
	}
	if f.hdrLen > n {
		return 0, fmt.Errorf("nats proxy: %s header size %d larger than total %d", f.op, f.hdrLen, n)
	}
	return n, nil
}

// bytes returns the frame as it goes on the wire.
func (f *frame) bytes() []byte {
	if f.payload == nil {
		return f.line
	}
	out := make([]byte, 0, len(f.line)+len(f.payload)+2)
	out = append(out, f.line...)
	out = append(out, f.payload...)
	return append(out, '\r', '\n')
}

// header returns the value of header name in the frame's header block.
func (f *frame) header(name string) string {
	if f.hdrLen <= 0 {
		return ""
	}
	lines := strings.Split(string(f.payload[:f.hdrLen]), "\r\n")
	for _, l := range lines[1:] { // lines[0] is NATS/1.0
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// body returns the payload after the headers.
func (f *frame) body() []byte {
	if f.hdrLen > 0 {
		return f.payload[f.hdrLen:]
	}
	return f.payload
}

// ackInfo is what a JetStream ack subject says about a delivery.
type ackInfo struct {
	stream, consumer string
	delivered        int
	streamSeq        uint64
}

// parseAckSubject parses $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.…
// and its longer form with a domain and account hash,
// $JS.ACK.<domain>.<hash>.<stream>.<consumer>.<delivered>.<sseq>.….
func parseAckSubject(s string) (ackInfo, bool) {
	if !strings.HasPrefix(s, "$JS.ACK.") {
		return ackInfo{}, false
	}
	t := strings.Split(s, ".")
	var off int
	switch {
	case len(t) == 9:
		off = 2
	case len(t) >= 11:
		off = 4
	default:
		return ackInfo{}, false
	}
	d, err1 := strconv.Atoi(t[off+2])
	seq, err2 := strconv.ParseUint(t[off+3], 10, 64)
	if err1 != nil || err2 != nil {
		return ackInfo{}, false
	}
	return ackInfo{stream: t[off], consumer: t[off+1], delivered: d, streamSeq: seq}, true
}

// ackKind classifies an ack's body: a positive ack (settles the message),
// a negative one (nak or term), or progress (+WPI, which only extends the
// deadline).
type ackKind int

const (
	ackPositive ackKind = iota
	ackNegative
	ackProgress
)

func classifyAck(body []byte) ackKind {
	b := bytes.TrimSpace(body)
	switch {
	case len(b) == 0, bytes.HasPrefix(b, []byte("+ACK")), bytes.HasPrefix(b, []byte("+NXT")):
		return ackPositive
	case bytes.HasPrefix(b, []byte("+WPI")):
		return ackProgress
	default: // -NAK, +TERM
		return ackNegative
	}
}
