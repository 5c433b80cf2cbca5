package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// maxLine bounds one JSON-RPC message on a stdio pipe.
const maxLine = 16 << 20

// relay sits between the client and a server's pipes (a stdio server's
// stdin and stdout, or an in-process server's), passing every message
// on, newline-delimited JSON as MCP's stdio transport has it. A tools/call
// whose attempt was armed with a fault is handed to the fault as an
// exchange, exactly as the HTTP fault proxy hands it a request: the fault
// may forward it and wait for the server's reply, deliver that reply,
// withhold it, or cut the transport. So every proxy fault works over stdio
// too: the server runs the call, the client never sees the reply.
type relay struct {
	toServer       io.WriteCloser
	toClient       *io.PipeWriter
	forwardTimeout time.Duration

	wmu sync.Mutex // serialises writes to the server
	cmu sync.Mutex // serialises writes to the client

	mu         sync.Mutex
	armed      map[string]*relayArm
	waiters    map[string]chan []byte // JSON-RPC id → the server's reply
	serverGone chan struct{}
	cut        bool
}

// relayArm is one armed attempt: its fault, and what the relay did.
type relayArm struct {
	fault       faults.ProxyFault
	claimedFlag atomic.Bool
	done        chan struct{} // closed once the fault is over
	gone        chan struct{} // closed by the caller once the client stopped waiting
	goneMu      sync.Once
	// Set before done is closed.
	report    faults.Report
	delivered bool // the server's reply reached the client
	cut       bool // the fault cut the transport
}

func (a *relayArm) clientGone() { a.goneMu.Do(func() { close(a.gone) }) }

// wireMsg is what the relay reads of a JSON-RPC message.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

// newRelay starts relaying between the client's pipes and the server's.
func newRelay(fromClient io.Reader, toClient *io.PipeWriter, toServer io.WriteCloser, fromServer io.Reader, forwardTimeout time.Duration) *relay {
	r := &relay{
		toServer: toServer, toClient: toClient, forwardTimeout: forwardTimeout,
		armed: map[string]*relayArm{}, waiters: map[string]chan []byte{}, serverGone: make(chan struct{}),
	}
	go r.clientLoop(fromClient)
	go r.serverLoop(fromServer)
	return r
}

// arm announces the attempt id and its fault.
func (r *relay) arm(id string, f faults.ProxyFault) *relayArm {
	a := &relayArm{fault: f, done: make(chan struct{}), gone: make(chan struct{})}
	r.mu.Lock()
	r.armed[id] = a
	r.mu.Unlock()
	return a
}

// disarm forgets the attempt id.
func (r *relay) disarm(id string) {
	r.mu.Lock()
	delete(r.armed, id)
	r.mu.Unlock()
}

func idKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// clientLoop reads what the client sends. It reads to the end even once
// the transport is cut, so that the client never blocks on a write.
func (r *relay) clientLoop(from io.Reader) {
	br := bufio.NewReaderSize(from, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		for tooLong && err == bufio.ErrBufferFull {
			_, err = br.ReadSlice('\n') // the rest of the line, unkept
		}
		if len(line) > 0 {
			r.fromClient(line)
		}
		if err != nil {
			_ = r.toServer.Close() // end of the session: the server sees EOF
			return
		}
	}
}

func (r *relay) fromClient(line []byte) {
	var m wireMsg
	if json.Unmarshal(line, &m) == nil && m.Method == "tools/call" && len(m.ID) > 0 {
		id, _ := m.Params.Meta[MetaAttempt].(string)
		r.mu.Lock()
		a := r.armed[id]
		if a != nil && (a.claimedFlag.Load() || a.fault == nil) {
			a = nil // a second send of the same attempt passes through
		}
		if a != nil {
			a.claimedFlag.Store(true)
		}
		r.mu.Unlock()
		if a != nil {
			go r.intercept(a, line, idKey(m.ID))
			return
		}
	}
	_ = r.sendServer(line)
}

func (r *relay) sendServer(line []byte) error {
	r.mu.Lock()
	cut := r.cut
	r.mu.Unlock()
	if cut {
		return errors.New("the transport was cut")
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_, err := r.toServer.Write(line)
	return err
}

func (r *relay) sendClient(line []byte) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	_, _ = r.toClient.Write(line)
}

// serverLoop reads what the server sends: replies someone waits for go to
// the waiter, everything else to the client. When the server's output
// ends (it exited, or was killed) the client's side ends too, so the
// client sees a dead transport at once.
func (r *relay) serverLoop(from io.Reader) {
	br := bufio.NewReaderSize(from, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		if tooLong {
			// Read no further: a server that breaks the framing is ended
			// with the session, and says why.
			close(r.serverGone)
			_ = r.toClient.CloseWithError(errTooLong)
			return
		}
		if len(line) > 0 {
			r.fromServer(line)
		}
		if err != nil {
			close(r.serverGone)
			_ = r.toClient.CloseWithError(io.EOF)
			return
		}
	}
}

// errTooLong ends a session whose server sent a message over maxLine.
var errTooLong = fmt.Errorf("the server sent a message over %d MiB (or a line that never ended): the session was ended", maxLine>>20)

// readLine reads one line of br, its newline included, of at most max
// bytes. Of a longer line only max bytes are ever held: it is given up
// once past max, and tooLong says so (line is nil). The error is br's.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, true, err
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, false, err
		}
	}
}

func (r *relay) fromServer(line []byte) {
	var m wireMsg
	if json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0 {
		k := idKey(m.ID)
		r.mu.Lock()
		ch := r.waiters[k]
		delete(r.waiters, k)
		r.mu.Unlock()
		if ch != nil {
			ch <- line
			return
		}
	}
	r.sendClient(line)
}

// cutTransport ends the session's transport both ways, as a dropped
// connection would: the client reads EOF, the server's input ends.
func (r *relay) cutTransport() {
	r.mu.Lock()
	r.cut = true
	r.mu.Unlock()
	_ = r.toClient.CloseWithError(io.ErrUnexpectedEOF)
	r.wmu.Lock()
	_ = r.toServer.Close()
	r.wmu.Unlock()
}

func (r *relay) intercept(a *relayArm, line []byte, id string) {
	ex := &relayExchange{r: r, a: a, line: line, id: id}
	defer close(a.done)
	a.fault.Intercept(ex)
	if !ex.answered {
		ex.Reset()
	}
	a.report = ex.report
}

// relayExchange is one tools/call in the relay, as a fault sees it.
type relayExchange struct {
	r        *relay
	a        *relayArm
	line     []byte
	id       string
	req      *http.Request
	up       *faults.Upstream
	fwdDone  bool
	answered bool
	report   faults.Report
}

var _ faults.Exchange = (*relayExchange)(nil)

// Request implements faults.Exchange: the JSON-RPC message as the body of
// a request to nowhere (faults read the body, never the address).
func (ex *relayExchange) Request() *http.Request {
	if ex.req == nil {
		ex.req, _ = http.NewRequest(http.MethodPost, "http://stdio/", bytes.NewReader(ex.line))
		ex.req.Header.Set("Content-Type", "application/json")
	}
	return ex.req
}

// ClientGone implements faults.Exchange.
func (ex *relayExchange) ClientGone() <-chan struct{} { return ex.a.gone }

// Forward implements faults.Exchange: send the call to the server and wait
// for its reply (the server runs to the end whatever the client does).
func (ex *relayExchange) Forward() (*faults.Upstream, error) {
	if ex.fwdDone {
		if ex.up == nil {
			return nil, errors.New("already forwarded")
		}
		return ex.up, nil
	}
	ex.fwdDone = true
	ch := make(chan []byte, 1)
	ex.r.mu.Lock()
	ex.r.waiters[ex.id] = ch
	ex.r.mu.Unlock()
	if err := ex.r.sendServer(ex.line); err != nil {
		ex.r.mu.Lock()
		delete(ex.r.waiters, ex.id)
		ex.r.mu.Unlock()
		ex.report.Refused = true
		ex.report.UpstreamError = "the server's input is closed: " + err.Error()
		return nil, err
	}
	ex.report.Forwarded = true
	timer := time.NewTimer(ex.r.forwardTimeout)
	defer timer.Stop()
	select {
	case reply := <-ch:
		ex.report.UpstreamStatus = http.StatusOK
		ex.up = &faults.Upstream{Status: http.StatusOK, Header: http.Header{}, Body: reply}
		return ex.up, nil
	case <-ex.r.serverGone:
		ex.report.UpstreamError = "the server's output ended (it exited) before it replied"
	case <-timer.C:
		ex.report.UpstreamError = "the server did not reply within " + ex.r.forwardTimeout.String()
	}
	ex.r.mu.Lock()
	delete(ex.r.waiters, ex.id)
	ex.r.mu.Unlock()
	return nil, errors.New(ex.report.UpstreamError)
}

// Respond implements faults.Exchange. The server's own reply is passed
// on; anything else (the 503 of a lost response) means the client gets
// no reply, and the caller stops waiting for one.
func (ex *relayExchange) Respond(status int, _ http.Header, body []byte) {
	if ex.answered {
		return
	}
	ex.answered = true
	if ex.up != nil && status == ex.up.Status && bytes.Equal(body, ex.up.Body) {
		ex.r.sendClient(body)
		ex.a.delivered = true
		return
	}
	if ex.up != nil {
		ex.report.Withheld = true
	}
}

// Reset implements faults.Exchange: the reply is lost with the transport.
// A client still waiting sees its session die; one that already gave up
// (a client timeout) keeps it.
func (ex *relayExchange) Reset() {
	if ex.answered {
		return
	}
	ex.answered = true
	if ex.up != nil {
		ex.report.Withheld = true
	}
	select {
	case <-ex.a.gone:
		return
	default:
	}
	ex.a.cut = true
	ex.r.cutTransport()
}

// claimed reports whether the armed call reached the relay at all.
func (a *relayArm) claimed() bool { return a.claimedFlag.Load() }
