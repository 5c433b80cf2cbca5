package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// toxiproxyModule is the module, beside the main one, whose only content
// is toxiproxy as a tool: the comparison builds it from there, so that
// the main module does not depend on it.
const toxiproxyModule = "testdata/toxiproxy"

var toxiproxyBuild struct {
	once sync.Once
	// dir holds the server, removed once the tests are over.
	dir  string
	path string
	err  error
}

// toxiproxyServer builds toxiproxy's server once per test binary (from
// the module proxy or the module cache) and returns its path; the
// benchmark is skipped if it cannot be built.
func toxiproxyServer(b *testing.B) string {
	b.Helper()
	toxiproxyBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "idemcheck-toxiproxy-")
		if err != nil {
			toxiproxyBuild.err = err
			return
		}
		toxiproxyBuild.dir = dir
		out := filepath.Join(dir, "toxiproxy-server")
		cmd := exec.Command("go", "build", "-o", out, "github.com/Shopify/toxiproxy/v2/cmd/server")
		cmd.Dir = toxiproxyModule
		if msg, err := cmd.CombinedOutput(); err != nil {
			toxiproxyBuild.err = fmt.Errorf("go build in %s: %v: %s", toxiproxyModule, err, msg)
			return
		}
		toxiproxyBuild.path = out
	})
	if toxiproxyBuild.err != nil {
		b.Skipf("toxiproxy could not be built, so there is nothing to compare with: %v", toxiproxyBuild.err)
	}
	return toxiproxyBuild.path
}

// startToxiproxy runs toxiproxy's server on loopback with one proxy, no
// toxic, in front of target (host:port), and returns the proxy's address.
func startToxiproxy(b *testing.B, target string) (string, int) {
	b.Helper()
	bin := toxiproxyServer(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	api := ln.Addr().String()
	_ = ln.Close()
	_, port, _ := net.SplitHostPort(api)
	cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", port)
	cmd.Env = append(os.Environ(), "LOG_LEVEL=error")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	c := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(waitLimit); ; {
		resp, err := c.Get("http://" + api + "/version")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("toxiproxy's API did not answer within %s: %v", waitLimit, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	spec, _ := json.Marshal(map[string]any{"name": "bench", "listen": "127.0.0.1:0", "upstream": target, "enabled": true})
	resp, err := c.Post("http://"+api+"/proxies", "application/json", bytes.NewReader(spec))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		Listen string `json:"listen"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated {
		b.Fatalf("creating toxiproxy's proxy: %d %v", resp.StatusCode, err)
	}
	return created.Listen, cmd.Process.Pid
}

// startProxyProcess runs the test binary as a fault proxy in front of
// target (see proxyEnv) and returns the proxy's URL.
func startProxyProcess(b *testing.B, target string) (string, int) {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), proxyEnv+"="+target)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the proxy process printed no URL: %v", err)
	}
	return strings.TrimSpace(line), cmd.Process.Pid
}

// via is a way to the target: its base URL, and the idemcheck proxy to
// announce each request to and collect its report from, as the HTTP
// adapter does, when it runs in this process.
type via struct {
	url string
	p   *faults.Proxy
	n   atomic.Int64
	// pid is the proxy's process, whose processor time is reported per
	// request (0: none).
	pid int
}

func (v *via) send(b *testing.B, c *http.Client) {
	var id string
	if v.p != nil {
		id = "a" + strconv.FormatInt(v.n.Add(1), 10)
		v.p.Arm(id, nil)
	}
	req, _ := http.NewRequest(http.MethodPost, v.url+"/orders", strings.NewReader(`{"memo":"m"}`))
	req.Header.Set("Idempotency-Key", "k")
	if id != "" {
		req.Header.Set(faults.AttemptHeader, id)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Errorf("status %d", resp.StatusCode)
	}
	if v.p != nil {
		if rep, ok := v.p.Report(context.Background(), id, waitLimit); !ok || !rep.Forwarded {
			b.Errorf("attempt %s: report %+v, %v", id, rep, ok)
		}
	}
}

// ways starts the target, and in front of it a fault proxy and a
// toxiproxy, each a process of its own (so that neither shares the
// benchmark's processors with the client and the target, and both are
// alike), and returns the three ways to it.
func ways(b *testing.B) (direct, idemcheck, toxiproxy *via) {
	b.Helper()
	tg := newTarget(b, targetOpts{quiet: true})
	tp, tpid := startToxiproxy(b, strings.TrimPrefix(tg.srv.URL, "http://"))
	ip, ipid := startProxyProcess(b, tg.srv.URL)
	return &via{url: tg.srv.URL}, &via{url: ip, pid: ipid}, &via{url: "http://" + tp, pid: tpid}
}

// cpuTime is the processor time (user and system) that process pid has
// used, from /proc; ok is false where there is none.
func cpuTime(pid int) (d time.Duration, ok bool) {
	if pid == 0 {
		return 0, false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command (in parentheses, which may hold
	// spaces): utime and stime are the 12th and 13th of them, in clock
	// ticks of 1/100 s.
	end := bytes.LastIndexByte(raw, ')')
	f := strings.Fields(string(raw[end+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

func benchClient(b *testing.B, keepAlive bool) *http.Client {
	tr := &http.Transport{Proxy: nil, DisableCompression: true, DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 64}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// BenchmarkProxyVsToxiproxy compares the fault proxy, passing requests
// through unfaulted, with toxiproxy without a toxic, each a process of its
// own in front of the same target, in the same run: the median latency
// each adds to a request (each proxied request is paired with one sent
// straight to the target), with a client that keeps its connections alive
// and one that opens a connection per request, and the requests per second
// of 16 workers with keep-alive. toxiproxy is built from
// faults/testdata/toxiproxy, a module of its own (see
// PROXY_PERFORMANCE.md); the benchmark is skipped when it cannot be built.
func BenchmarkProxyVsToxiproxy(b *testing.B) {
	direct, idem, toxi := ways(b)
	for _, keepAlive := range []bool{true, false} {
		name := "latency-keepalive"
		if !keepAlive {
			name = "latency-new-conn"
		}
		for _, w := range []struct {
			name string
			v    *via
		}{{"idemcheck", idem}, {"toxiproxy", toxi}} {
			b.Run(name+"/"+w.name, func(b *testing.B) { benchAddedLatency(b, direct, w.v, keepAlive) })
		}
	}
	for _, w := range []struct {
		name string
		v    *via
	}{{"direct", direct}, {"idemcheck", idem}, {"toxiproxy", toxi}} {
		b.Run("throughput-16/"+w.name, func(b *testing.B) { benchThroughput(b, w.v, 16) })
	}
}

// benchAddedLatency times b.N pairs of requests, one straight to the
// target and one through v, and reports the difference of their medians.
func benchAddedLatency(b *testing.B, direct, v *via, keepAlive bool) {
	c := benchClient(b, keepAlive)
	direct.send(b, c) // warm both ways up
	v.send(b, c)
	straight := make([]time.Duration, 0, b.N)
	proxied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		direct.send(b, c)
		mid := time.Now()
		v.send(b, c)
		proxied = append(proxied, time.Since(mid))
		straight = append(straight, mid.Sub(start))
	}
	b.StopTimer()
	slices.Sort(straight)
	slices.Sort(proxied)
	med := func(ds []time.Duration) time.Duration { return ds[len(ds)/2] }
	b.ReportMetric(float64(med(proxied)-med(straight))/float64(time.Microsecond), "µs-added")
	b.ReportMetric(float64(med(straight))/float64(time.Microsecond), "µs-direct")
}

// benchThroughput sends b.N requests through v from workers goroutines,
// and reports the requests per second, and the proxy's processor time per
// request: a figure that a machine busy with other work changes less.
func benchThroughput(b *testing.B, v *via, workers int) {
	c := benchClient(b, true)
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	cpu0, cpuOK := cpuTime(v.pid)
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				v.send(b, c)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	if cpu1, ok := cpuTime(v.pid); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(b.N), "proxy-cpu-µs/req")
	}
}
