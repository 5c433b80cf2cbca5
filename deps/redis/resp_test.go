package redis

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCommand(t *testing.T) {
	var out bytes.Buffer
	r := newCommandReader(strings.NewReader("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\nget  k\r\n"), 1<<20)
	c, err := r.read(&out)
	require.NoError(t, err)
	assert.Equal(t, "SET", c.name())
	assert.Equal(t, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n", string(c.raw))
	assert.Equal(t, []string{"SET", "k", "v1"}, strs(c.args))
	c, err = r.read(&out)
	require.NoError(t, err)
	assert.Equal(t, "GET", c.name(), "an inline command")
	assert.Equal(t, []string{"get", "k"}, strs(c.args))
	assert.Zero(t, out.Len(), "nothing streamed")
}

// TestReadCommandStreamsLarge: an argument over the limit is forwarded as
// it is read, with what came before it.
func TestReadCommandStreamsLarge(t *testing.T) {
	in := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20\r\n01234567890123456789\r\n*1\r\n$4\r\nPING\r\n"
	var out bytes.Buffer
	r := newCommandReader(strings.NewReader(in), 24)
	c, err := r.read(&out)
	require.NoError(t, err)
	assert.True(t, c.streamed)
	assert.Equal(t, "SET", c.name())
	assert.Equal(t, in[:len(in)-len("*1\r\n$4\r\nPING\r\n")], out.String())
	c, err = r.read(&out)
	require.NoError(t, err)
	assert.Equal(t, "PING", c.name(), "the next command reads as usual")
}

func TestReadCommandRejects(t *testing.T) {
	for _, in := range []string{
		"*1\r\n:1\r\n",             // not a bulk string
		"*1\r\n$-2\r\n",            // a negative length
		"*x\r\n",                   // not a count
		"*1\r\n$1\r\nab\r\n",       // no CRLF after the argument
		"PING\n",                   // a bare LF
		"*2000000\r\n",             // too many arguments
		strings.Repeat("a", 70000), // a line too long
	} {
		_, err := newCommandReader(strings.NewReader(in), 1<<20).read(&bytes.Buffer{})
		assert.Error(t, err, "%q", in[:min(len(in), 20)])
	}
}

func TestCopyReply(t *testing.T) {
	for _, in := range []string{
		"+OK\r\n", "-ERR no\r\n", ":42\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n", "_\r\n",
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n",
		"%1\r\n+k\r\n~2\r\n,1.5\r\n#t\r\n",
		"|1\r\n+ttl\r\n:3\r\n$2\r\nhi\r\n", // an attribute, then its reply
		"=9\r\ntxt:hello\r\n", "!3\r\nbad\r\n", "(12345678901234567890\r\n",
	} {
		br := bufio.NewReader(strings.NewReader(in + "+NEXT\r\n"))
		line, err := readLine(br, "database")
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, copyReply(&out, br, line, 0), "%q", in)
		assert.Equal(t, in, out.String())
		next, _ := readLine(br, "database")
		assert.Equal(t, "+NEXT\r\n", string(next), "one reply read, no more")
	}
	deep := strings.Repeat("*1\r\n", maxDepth+2) + ":1\r\n"
	br := bufio.NewReader(strings.NewReader(deep))
	line, _ := readLine(br, "database")
	assert.Error(t, copyReply(&bytes.Buffer{}, br, line, 0), "nesting is bounded")
}

// FuzzReadCommand: any bytes read as commands without a panic, and a
// command read whole is the bytes it came from.
func FuzzReadCommand(f *testing.F) {
	for _, s := range []string{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "PING\r\n", "*1\r\n$10\r\nabc", "*-1\r\n", "\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newCommandReader(bytes.NewReader(in), 64)
		var out bytes.Buffer
		for range 100 {
			c, err := r.read(&out)
			if err != nil {
				return
			}
			if !c.streamed && !bytes.Contains(in, c.raw) {
				t.Fatalf("command %q is not from the input", c.raw)
			}
		}
	})
}

// FuzzCopyReply: any bytes copy as replies without a panic, and what is
// copied is a prefix of them.
func FuzzCopyReply(f *testing.F) {
	for _, s := range []string{"*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n+a\r\n+b\r\n", "|1\r\n+a\r\n+b\r\n+c\r\n", "$5\r\nab"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		br := bufio.NewReader(bytes.NewReader(in))
		line, err := readLine(br, "database")
		if err != nil {
			return
		}
		var out bytes.Buffer
		_ = copyReply(&out, br, line, 0)
		if !bytes.HasPrefix(in, out.Bytes()) {
			t.Fatalf("copied %q, not a prefix of %q", out.Bytes(), in)
		}
	})
}

func strs(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}
