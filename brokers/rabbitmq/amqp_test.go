package rabbitmq

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameBytes builds one frame.
func frameBytes(typ byte, channel uint16, payload []byte) []byte {
	b := []byte{typ, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(b[1:], channel)
	binary.BigEndian.PutUint32(b[3:], uint32(len(payload)))
	b = append(b, payload...)
	return append(b, frameEnd)
}

func methodPayload(class, method uint16, args ...byte) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint16(b, class)
	binary.BigEndian.PutUint16(b[2:], method)
	return append(b, args...)
}

func shortstr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func TestDeliverHeaderAndAck(t *testing.T) {
	deliver := methodPayload(classBasic, methodBasicDeliver,
		append(append(append(append(shortstr("ctag"), u64(7)...), 1), shortstr("")...), shortstr("events")...)...)
	wire := frameBytes(frameMethod, 1, deliver)
	f, err := readFrame(bufio.NewReader(bytes.NewReader(wire)))
	require.NoError(t, err)
	assert.Equal(t, wire, f.raw)
	class, method, args, ok := f.method()
	require.True(t, ok)
	assert.Equal(t, [2]uint16{classBasic, methodBasicDeliver}, [2]uint16{class, method})
	tag, redelivered, err := deliverTag(method, args)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), tag)
	assert.True(t, redelivered)

	// A content header with content-type, headers, delivery-mode and
	// message-id.
	hdr := binary.BigEndian.AppendUint16(nil, classBasic)
	hdr = binary.BigEndian.AppendUint16(hdr, 0)
	hdr = binary.BigEndian.AppendUint64(hdr, 2)
	hdr = binary.BigEndian.AppendUint16(hdr, 1<<15|1<<13|1<<12|1<<7)
	hdr = append(hdr, shortstr("application/json")...)
	hdr = binary.BigEndian.AppendUint32(hdr, 3)
	hdr = append(hdr, 1, 2, 3, 2)
	hdr = append(hdr, shortstr("evt_1")...)
	id, err := messageID(hdr)
	require.NoError(t, err)
	assert.Equal(t, "evt_1", id)

	tag, multiple, err := ackTag(methodBasicAck, append(u64(9), 1))
	require.NoError(t, err)
	assert.Equal(t, uint64(9), tag)
	assert.True(t, multiple)
	_, multiple, err = ackTag(methodBasicReject, append(u64(9), 1))
	require.NoError(t, err)
	assert.False(t, multiple, "reject's bit is requeue, not multiple")
}

func TestReadFrameRejectsBadFrames(t *testing.T) {
	bad := frameBytes(frameMethod, 0, []byte{1, 2})
	bad[len(bad)-1] = 0
	_, err := readFrame(bufio.NewReader(bytes.NewReader(bad)))
	assert.ErrorContains(t, err, "frame end")
	huge := []byte{1, 0, 0, 0xff, 0xff, 0xff, 0xff}
	_, err = readFrame(bufio.NewReader(bytes.NewReader(huge)))
	assert.ErrorContains(t, err, "at most")
	_, err = messageID([]byte{0, 60})
	assert.Error(t, err)
}

func FuzzFrames(f *testing.F) {
	f.Add(frameBytes(frameMethod, 1, methodPayload(classBasic, methodBasicAck, append(u64(1), 0)...)))
	f.Add(frameBytes(frameHeader, 1, []byte{0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x80, 3, 'a', 'b', 'c'}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for range 16 {
			fr, err := readFrame(r)
			if err != nil {
				return
			}
			if _, method, args, ok := fr.method(); ok {
				_, _, _ = deliverTag(method, args)
				_, _, _ = ackTag(method, args)
			}
			_, _ = messageID(fr.payload)
		}
	})
}
