package process

import (
	"io"
	"sync"
)

// outputLimit is how much of the combined output Process.Output keeps.
const outputLimit = 64 << 10

// tail keeps the last max bytes written to it in a ring. It is safe for
// concurrent use.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte // grows up to max, then wraps
	start int    // once full: index of the oldest byte and of the next write
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.start = 0
		return n, nil
	}
	if room := t.max - len(t.buf); room > 0 {
		k := min(room, len(p))
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(t.buf[t.start:], p)
		t.start = (t.start + k) % t.max
		p = p[k:]
	}
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]byte, 0, len(t.buf))
	out = append(out, t.buf[t.start:]...)
	out = append(out, t.buf[:t.start]...)
	return string(out)
}

// outputWriter is the child's stdout and stderr: it fills the tail and
// copies to the optional extra writer. It never fails, because a failing
// write would break the pipe and kill the target with SIGPIPE.
type outputWriter struct {
	tail *tail

	mu    sync.Mutex
	extra io.Writer // nil after its first error
}

func (w *outputWriter) Write(p []byte) (int, error) {
	_, _ = w.tail.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.extra != nil {
		if _, err := w.extra.Write(p); err != nil {
			w.extra = nil
		}
	}
	return len(p), nil
}
