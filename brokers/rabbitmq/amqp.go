package rabbitmq

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// AMQP 0-9-1 frame types and the methods the proxy looks at.
const (
	frameMethod = 1
	frameHeader = 2
	frameEnd    = 0xCE

	classChannel = 20
	classBasic   = 60

	methodChannelOpen    = 10
	methodChannelClose   = 40
	methodChannelCloseOK = 41

	methodBasicDeliver = 60
	methodBasicGetOK   = 71
	methodBasicAck     = 80
	methodBasicReject  = 90
	methodBasicNack    = 120
)

// maxFrame bounds one frame as the proxy reads it (the client and server
// negotiate frame_max, 128 KiB by default).
const maxFrame = 16 << 20

// protocolHeaderLen is the length of "AMQP\x00\x00\x09\x01", which a
// client sends before its first frame.
const protocolHeaderLen = 8

// frame is one AMQP frame.
type frame struct {
	typ     byte
	channel uint16
	payload []byte
	raw     []byte // the whole frame, as read
}

func readFrame(r *bufio.Reader) (*frame, error) {
	head := make([]byte, 7)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(head[3:7])
	if size > maxFrame {
		return nil, fmt.Errorf("rabbitmq proxy: a frame of %d bytes; expected at most %d", size, maxFrame)
	}
	raw := make([]byte, 7+int(size)+1)
	copy(raw, head)
	if _, err := io.ReadFull(r, raw[7:]); err != nil {
		return nil, err
	}
	if raw[len(raw)-1] != frameEnd {
		return nil, fmt.Errorf("rabbitmq proxy: frame end 0x%02x; expected 0x%02x", raw[len(raw)-1], frameEnd)
	}
	return &frame{typ: head[0], channel: binary.BigEndian.Uint16(head[1:3]), payload: raw[7 : 7+size], raw: raw}, nil
}

// method returns a method frame's class and method ids and arguments.
func (f *frame) method() (class, method uint16, args []byte, ok bool) {
	if f.typ != frameMethod || len(f.payload) < 4 {
		return 0, 0, nil, false
	}
	return binary.BigEndian.Uint16(f.payload), binary.BigEndian.Uint16(f.payload[2:]), f.payload[4:], true
}

var errShort = errors.New("rabbitmq proxy: a frame shorter than its fields")

// fields reads the AMQP field types the proxy needs from a byte slice.
type fields struct {
	b   []byte
	err error
}

func (p *fields) take(n int) []byte {
	if p.err != nil || len(p.b) < n {
		p.err = errShort
		return nil
	}
	out := p.b[:n]
	p.b = p.b[n:]
	return out
}

func (p *fields) u8() byte {
	if b := p.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (p *fields) u16() uint16 {
	if b := p.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (p *fields) u32() uint32 {
	if b := p.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (p *fields) u64() uint64 {
	if b := p.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (p *fields) shortstr() string {
	n := int(p.u8())
	return string(p.take(n))
}

// deliverTag reads basic.deliver or basic.get-ok: the delivery tag and
// the redelivered flag.
func deliverTag(method uint16, args []byte) (tag uint64, redelivered bool, err error) {
	p := &fields{b: args}
	if method == methodBasicDeliver {
		p.shortstr() // consumer tag
	}
	tag = p.u64()
	redelivered = p.u8()&1 == 1
	return tag, redelivered, p.err
}

// ackTag reads basic.ack, basic.nack or basic.reject: the delivery tag
// and whether it covers every tag up to it.
func ackTag(method uint16, args []byte) (tag uint64, multiple bool, err error) {
	p := &fields{b: args}
	tag = p.u64()
	bits := p.u8()
	if method != methodBasicReject {
		multiple = bits&1 == 1
	}
	return tag, multiple, p.err
}

// messageID reads the message-id property of a basic content header.
func messageID(payload []byte) (string, error) {
	p := &fields{b: payload}
	p.u16() // class
	p.u16() // weight
	p.u64() // body size
	flags := p.u16()
	if flags&1 == 1 {
		return "", errors.New("rabbitmq proxy: continued property flags are not supported")
	}
	// Properties in order, each present when its bit (from 15 down) is set.
	if flags&(1<<15) != 0 { // content-type
		p.shortstr()
	}
	if flags&(1<<14) != 0 { // content-encoding
		p.shortstr()
	}
	if flags&(1<<13) != 0 { // headers: a field table
		p.take(int(p.u32()))
	}
	if flags&(1<<12) != 0 { // delivery-mode
		p.u8()
	}
	if flags&(1<<11) != 0 { // priority
		p.u8()
	}
	for _, bit := range []uint16{10, 9, 8} { // correlation-id, reply-to, expiration
		if flags&(1<<bit) != 0 {
			p.shortstr()
		}
	}
	if flags&(1<<7) == 0 {
		return "", p.err
	}
	id := p.shortstr()
	return id, p.err
}
