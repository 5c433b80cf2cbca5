package redis

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readValue(t *testing.T, wire string) (value, string) {
	t.Helper()
	rd := &reader{r: bufio.NewReader(strings.NewReader(wire))}
	v, raw, err := rd.next()
	require.NoError(t, err)
	return v, string(raw)
}

func TestReadCommandAndRewrite(t *testing.T) {
	wire := "*5\r\n$4\r\nXACK\r\n$6\r\nevents\r\n$9\r\nconsumers\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n"
	v, raw := readValue(t, wire)
	assert.Equal(t, wire, raw, "the raw bytes are the whole command")
	args := v.args()
	require.Len(t, args, 5)
	assert.Equal(t, "XACK", string(args[0]))
	args[3] = []byte("0-0")
	assert.Equal(t, "*5\r\n$4\r\nXACK\r\n$6\r\nevents\r\n$9\r\nconsumers\r\n$3\r\n0-0\r\n$3\r\n2-0\r\n", string(encodeCommand(args)))

	v, _ = readValue(t, "PING hello\r\n")
	assert.Equal(t, [][]byte{[]byte("PING"), []byte("hello")}, v.args(), "an inline command")
}

func TestEntriesInRESP2AndRESP3Replies(t *testing.T) {
	entry := "*2\r\n$3\r\n1-0\r\n*4\r\n$8\r\nEvent-Id\r\n$5\r\nevt_1\r\n$7\r\npayload\r\n$2\r\nhi\r\n"
	resp2 := "*1\r\n*2\r\n$6\r\nevents\r\n*1\r\n" + entry
	resp3 := "%1\r\n$6\r\nevents\r\n*1\r\n" + entry
	autoclaim := "*3\r\n$3\r\n0-0\r\n*1\r\n" + entry + "*0\r\n"
	for name, wire := range map[string]string{"XREADGROUP RESP2": resp2, "XREADGROUP RESP3": resp3, "XAUTOCLAIM": autoclaim} {
		v, raw := readValue(t, wire)
		assert.Equal(t, wire, raw, name)
		es := entries(v, nil)
		require.Len(t, es, 1, name)
		assert.Equal(t, "1-0", es[0].id, name)
		assert.Equal(t, "evt_1", es[0].fields["Event-Id"], name)
	}
	v, _ := readValue(t, "*-1\r\n")
	assert.Empty(t, entries(v, nil), "a nil reply (BLOCK timed out)")
	v, _ = readValue(t, "*2\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n")
	assert.Empty(t, entries(v, nil), "XCLAIM JUSTID lists ids, not deliveries")
}

func TestReaderRejectsBadLengths(t *testing.T) {
	for _, wire := range []string{"$abc\r\n", "*99999999999\r\n", "$-5\r\n", "$3\r\nab"} {
		rd := &reader{r: bufio.NewReader(strings.NewReader(wire))}
		_, _, err := rd.next()
		assert.Error(t, err, wire)
	}
}

func TestIsStreamID(t *testing.T) {
	for s, want := range map[string]bool{"1-0": true, "1700000000000-12": true, "events": false, "-1": false, "1-": false, "1-a": false} {
		assert.Equal(t, want, isStreamID([]byte(s)), s)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n", "%1\r\n+a\r\n:1\r\n", "|1\r\n+k\r\n+v\r\n+OK\r\n", ">2\r\n+a\r\n_\r\n", "PING\r\n",
		"*3\r\n$3\r\n0-0\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*0\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := &reader{r: bufio.NewReader(bytes.NewReader(b))}
		for range 16 {
			v, raw, err := rd.next()
			if err != nil {
				return
			}
			if len(raw) == 0 {
				t.Fatal("a value without raw bytes")
			}
			_ = entries(v, nil)
			_ = encodeCommand(v.args())
		}
	})
}
