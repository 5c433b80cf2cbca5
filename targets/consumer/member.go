package consumer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/targets/process"
)

// member is one consumer process of the group.
type member struct {
	name  string
	proc  *process.Process
	ready *readyWatch
	cfg   Config
	// topic and url are the topic it subscribes to and the broker's
	// address, as its command line was given them.
	topic, url string
	// onExit is told when the process exits without being asked to.
	onExit func(string)

	mu     sync.Mutex
	asked  bool // a Kill, Stop or Restart is under way or done
	starts int
	gen    int // the incarnation being watched
}

// Vars returns the placeholders a consumer's command line may use: the
// broker's (those of brokerPlaceholders, which a configuration is checked
// against), {{state_dir}}, the fakes' and the dependencies'
// (harness.Env.Vars) and {{replica}}; no {{port}}.
func Vars(env *harness.Env, b brokers.Broker, replica int) map[string]string {
	vars := env.Vars()
	ph := b.Placeholders()
	for _, k := range brokerPlaceholders {
		if v, ok := ph[k]; ok {
			vars[k] = v
		}
	}
	vars[section.PhReplica] = strconv.Itoa(replica)
	return vars
}

func startMember(ctx context.Context, cfg Config, launch Launch, env *harness.Env, b brokers.Broker, i, n int) (*member, error) {
	vars := Vars(env, b, i)
	expand := func(s string) (string, error) { return harness.Expand(s, vars) }
	name := cfg.Name
	if n > 1 {
		name = fmt.Sprintf("%s#%d", cfg.Name, i)
	}
	spec, err := launch.Spec(name, "", env.RunID, expand)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	spec.Ready = process.Ready{} // readiness is the consumer's output line, if any
	spec.Env = append(spec.Env, "IDEMCHECK_REPLICA="+strconv.Itoa(i))
	w := &readyWatch{text: cfg.ReadyOutput, changed: make(chan struct{})}
	spec.Stdout = w
	m := &member{name: name, ready: w, cfg: cfg, topic: vars[brokers.PlaceholderTopic], url: vars[brokers.PlaceholderURL]}
	p, err := process.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	m.proc = p
	if err := m.awaitReady(ctx, 1, launch.ReadyTimeout); err != nil {
		_ = p.Stop(context.Background())
		return nil, err
	}
	m.starts = 1
	return m, nil
}

// watch tells onExit once the current incarnation exits unasked.
func (m *member) watch(onExit func(string)) {
	m.onExit = onExit
	m.watchCurrent()
}

func (m *member) watchCurrent() {
	done := m.proc.Exited()
	m.mu.Lock()
	m.gen++
	gen := m.gen
	m.mu.Unlock()
	go func() {
		<-done
		m.mu.Lock()
		asked := m.asked || m.gen != gen
		m.mu.Unlock()
		if !asked && m.onExit != nil {
			m.onExit(fmt.Sprintf("consumer %s exited on its own while idemcheck was publishing to it; the end of its output: %s", m.name, tail(m.proc.Output(), 400)))
		}
	}()
}

// awaitReady waits until the process has printed the ready text for the
// nth time (at once when none is configured), or exited, or the timeout.
func (m *member) awaitReady(ctx context.Context, nth int, timeout time.Duration) error {
	if m.cfg.ReadyOutput == "" {
		return nil
	}
	if timeout <= 0 {
		timeout = process.DefaultReadyTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	exited := m.proc.Exited()
	for {
		ok, ch := m.ready.seen(nth)
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-exited:
			return &process.StartError{Name: m.name, Reason: fmt.Sprintf("it exited before printing %q (ready_output)", m.cfg.ReadyOutput), ExitCode: -1, Output: m.proc.Output()}
		case <-wctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			_ = m.proc.Kill()
			return &process.StartError{Name: m.name, Reason: fmt.Sprintf("it did not print %q (ready_output) within %s: check that it subscribes to topic %q at %s ({{broker.topic}}, {{broker.url}}) and prints that line once it does", m.cfg.ReadyOutput, timeout, m.topic, m.url), ExitCode: -1, Output: m.proc.Output()}
		}
	}
}

func (m *member) kill() error {
	m.mu.Lock()
	m.asked = true
	m.mu.Unlock()
	return m.proc.Kill()
}

func (m *member) stop(ctx context.Context) error {
	m.mu.Lock()
	m.asked = true
	m.mu.Unlock()
	return m.proc.Stop(ctx)
}

func (m *member) restart(ctx context.Context, timeout time.Duration) error {
	m.mu.Lock()
	m.asked = true
	m.mu.Unlock()
	if err := m.proc.Restart(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	m.starts++
	nth := m.starts
	m.gen++ // the exit of the incarnation before is no news
	m.asked = false
	m.mu.Unlock()
	m.watchCurrent()
	return m.awaitReady(ctx, nth, timeout)
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	if s == "" {
		return "(none)"
	}
	return s
}

// readyWatch counts how often the consumer printed the ready text.
type readyWatch struct {
	text string

	mu      sync.Mutex
	buf     []byte // the unread end of the output, at most a line
	n       int
	changed chan struct{}
}

// maxLine bounds what readyWatch keeps of a line without a newline.
const maxLine = 4096

func (w *readyWatch) Write(p []byte) (int, error) {
	if w.text == "" {
		return len(p), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	n := strings.Count(string(w.buf), w.text)
	if n > 0 {
		w.n += n
		i := strings.LastIndex(string(w.buf), w.text)
		w.buf = append([]byte(nil), w.buf[i+len(w.text):]...)
		close(w.changed)
		w.changed = make(chan struct{})
	}
	if len(w.buf) > maxLine+len(w.text) {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-len(w.text):]...)
	}
	return len(p), nil
}

func (w *readyWatch) seen(nth int) (bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n >= nth, w.changed
}
