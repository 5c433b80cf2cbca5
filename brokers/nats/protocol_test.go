package nats

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func read(t *testing.T, wire string) *frame {
	t.Helper()
	f, err := readFrame(bufio.NewReader(strings.NewReader(wire)))
	require.NoError(t, err)
	return f
}

func TestReadFrame(t *testing.T) {
	f := read(t, "PUB $JS.ACK.events.consumers.1.5.5.1700000000.0 4\r\n+ACK\r\n")
	assert.Equal(t, "PUB", f.op)
	assert.Equal(t, "$JS.ACK.events.consumers.1.5.5.1700000000.0", f.subject)
	assert.Equal(t, "", f.reply)
	assert.Equal(t, "+ACK", string(f.body()))

	f = read(t, "HMSG events 7 $JS.ACK.events.consumers.2.9.12.1700000000.3 29 31\r\nNATS/1.0\r\nEvent-Id: evt_1\r\n\r\nhi\r\n")
	assert.Equal(t, "HMSG", f.op)
	assert.Equal(t, "$JS.ACK.events.consumers.2.9.12.1700000000.3", f.reply)
	assert.Equal(t, "evt_1", f.header("Event-Id"))
	assert.Equal(t, "evt_1", f.header("event-id"), "header names are case-insensitive")
	assert.Equal(t, "hi", string(f.body()))
	assert.Equal(t, "HMSG events 7 $JS.ACK.events.consumers.2.9.12.1700000000.3 29 31\r\nNATS/1.0\r\nEvent-Id: evt_1\r\n\r\nhi\r\n", string(f.bytes()))

	f = read(t, "MSG events 1 5\r\nhello\r\n")
	assert.Equal(t, "", f.reply)
	assert.Equal(t, "hello", string(f.body()))

	f = read(t, "PING\r\n")
	assert.Equal(t, "PING", f.op)
	assert.Equal(t, "PING\r\n", string(f.bytes()))
}

func TestReadFrameRejectsMalformedSizes(t *testing.T) {
	for _, wire := range []string{
		"PUB a x\r\n", "PUB a b c d\r\n", "HPUB a 10 5\r\n", "MSG a\r\n", "PUB a 999999999\r\n",
	} {
		_, err := readFrame(bufio.NewReader(strings.NewReader(wire)))
		assert.Error(t, err, wire)
	}
}

func TestParseAckSubject(t *testing.T) {
	info, ok := parseAckSubject("$JS.ACK.events.consumers.3.17.21.1700000000.0")
	require.True(t, ok)
	assert.Equal(t, ackInfo{stream: "events", consumer: "consumers", delivered: 3, streamSeq: 17}, info)
	info, ok = parseAckSubject("$JS.ACK.hub.ACCHASH.events.consumers.2.8.9.1700000000.0.tok")
	require.True(t, ok)
	assert.Equal(t, ackInfo{stream: "events", consumer: "consumers", delivered: 2, streamSeq: 8}, info)
	for _, s := range []string{"events", "$JS.ACK.a.b", "$JS.ACK.events.consumers.x.1.1.1.0"} {
		_, ok := parseAckSubject(s)
		assert.False(t, ok, s)
	}
}

func TestClassifyAck(t *testing.T) {
	for body, want := range map[string]ackKind{
		"": ackPositive, "+ACK": ackPositive, "+NXT 1": ackPositive, "+WPI": ackProgress,
		"-NAK": ackNegative, `-NAK {"delay":200000000}`: ackNegative, "+TERM": ackNegative,
	} {
		assert.Equal(t, want, classifyAck([]byte(body)), body)
	}
}

func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"PUB a 1\r\nx\r\n", "HPUB a r 12 14\r\nNATS/1.0\r\n\r\nhi\r\n", "HMSG a 1 r 12 12\r\nNATS/1.0\r\n\r\n\r\n",
		"MSG a 1 r 0\r\n\r\n", "INFO {}\r\n", "+OK\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for range 16 {
			fr, err := readFrame(r)
			if err != nil {
				return
			}
			_ = fr.header("Event-Id")
			_ = fr.body()
			if fr.payload != nil && len(fr.bytes()) != len(fr.line)+len(fr.payload)+2 {
				t.Fatalf("bytes() lost data")
			}
			_, _ = parseAckSubject(fr.reply)
		}
	})
}
