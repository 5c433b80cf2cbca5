package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// hostileEnv turns the test binary into a hostile target; its value is
// the behaviour:
//
//	hugebody  HTTP on $1 (an address): /healthz answers, every other
//	          request gets 200 and a body of hugeBody bytes
//	headerflood HTTP on $1: /healthz answers; every other request gets
//	          201 and a new order, and, while another request is in
//	          flight (a burst's copies), a header of floodHeader bytes
//	crashstart prints garbageText on stderr and exits 1 at once
//	silent    accepts TCP connections on $1 and never answers
//	mute      HTTP on $1: /healthz answers; every other request is
//	          held, never answered, until the client leaves
//	hang      a CLI tool that prints "started" on stderr and a line
//	          on stdout, then hangs until killed
//	endless   HTTP on $1: /healthz answers; every other request gets
//	          200 and a body that never ends
//	trickle   HTTP on $1: /healthz answers; every other request gets
//	          200 and a body that never ends, 1 KiB every 100 ms
//	garbage   a CLI tool that is not idempotent (a new order on every
//	          call): after floodBytes of log lines with ANSI colour codes,
//	          NUL and other control bytes and invalid UTF-8 on stdout and
//	          stderr, a JSON reply whose effect and id hold control
//	          characters (escaped, as JSON allows) and invalid UTF-8
//	charger   HTTP on $1: POST /orders charges $PAYMENTS_URL once per
//	          call, without a key (not idempotent); with $DISARM set it
//	          first sends DELETE /_idemcheck/rules to the fake, as a
//	          server that hides from downstream faults would; with
//	          $GREYLIST set it answers the first request of each body
//	          503 without calling the fake (as a greylisting server
//	          does) and charges on its retries, so that no downstream
//	          fault armed for a first attempt ever acts
const hostileEnv = "IDEMCHECK_TEST_HOSTILE"

// Sizes of what the hostile targets send.
const (
	hugeBody    = 256 << 20
	floodBytes  = 8 << 20
	floodHeader = 10 << 20
)

// garbageText is what the garbage tool prints: colours, NUL, a bell, a
// form feed, invalid UTF-8, and a byte-order mark.
const garbageText = "\x1b[31mred\x1b[0m \x00nul \x07bell \x0cff \xff\xfe bad \xef\xbb\xbf " + secretText

// secretText holds credentials of the shapes every report redacts.
const secretText = "Authorization: Bearer " + bearerSecret + " key=" + keySecret

// The credentials in secretText, which no report may hold.
const (
	bearerSecret = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0"
	keySecret    = "sk_live_51HqLyjWDarjtT1zdp7dc"
)

func hostile(mode string, args []string) int {
	switch mode {
	case "hugebody":
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"effect":"created","data":{"id":"ord_1"},"pad":"`)
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for n := 0; n < hugeBody; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			_, _ = io.WriteString(w, `"}`)
		})
		_ = http.ListenAndServe(args[0], mux)
		return 1
	case "headerflood":
		flood := strings.Repeat("f", floodHeader)
		var inFlight, orders atomic.Int64
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			_, _ = io.Copy(io.Discard, r.Body)
			if n > 1 {
				w.Header().Set("X-Flood", flood)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"effect":"created","data":{"id":"ord_%d"}}`, orders.Add(1))
		})
		_ = http.ListenAndServe(args[0], mux)
		return 1
	case "crashstart":
		fmt.Fprintln(os.Stderr, "fatal: "+garbageText)
		return 1
	case "silent":
		ln, err := net.Listen("tcp", args[0])
		if err != nil {
			return 1
		}
		// Never answered, never closed: kept referenced, so that no
		// finalizer closes them either.
		var held []net.Conn
		defer func() { runtime.KeepAlive(held) }()
		for {
			c, err := ln.Accept()
			if err != nil {
				return 1
			}
			held = append(held, c)
		}
	case "mute":
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
		mux.HandleFunc("/", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		_ = http.ListenAndServe(args[0], mux)
		return 1
	case "hang":
		fmt.Fprintln(os.Stderr, "started")
		fmt.Fprintln(os.Stdout, "working")
		select {}
	case "endless":
		return endlessBody(args[0], 64<<10, 0)
	case "trickle":
		return endlessBody(args[0], 1<<10, 100*time.Millisecond)
	case "charger":
		return charger(args[0], os.Getenv("PAYMENTS_URL"), os.Getenv("DISARM") != "", os.Getenv("GREYLIST") != "")
	case "garbage":
		line := strings.Repeat("log "+garbageText+" ", 20) + "\n"
		for n := 0; n < floodBytes; n += len(line) {
			os.Stdout.WriteString(line)
			os.Stderr.WriteString(line)
		}
		// A new order on every call, whatever the key: a finding whose
		// evidence holds all of the above.
		fmt.Fprintf(os.Stdout, "{\"ok\":true,\"effect\":\"created\\u001b[0m\",\"data\":{\"id\":\"ord_%d_\\u0000\\u0007\xff\xfe\",\"auth\":%q}}\n", os.Getpid(), secretText)
		return 0
	}
	return 2
}

// charger is the charger hostile target (see hostileEnv).
func charger(addr, payments string, disarm, greylist bool) int {
	var mu sync.Mutex
	seen := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("POST /orders", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if greylist {
			mu.Lock()
			first := !seen[string(body)]
			seen[string(body)] = true
			mu.Unlock()
			if first {
				http.Error(w, "try again", http.StatusServiceUnavailable)
				return
			}
		}
		if disarm {
			req, _ := http.NewRequestWithContext(r.Context(), http.MethodDelete, payments+"/_idemcheck/rules", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		form := url.Values{"amount": {"100"}, "description": {string(body)}}
		resp, err := http.PostForm(payments+"/v1/charges", form)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			http.Error(w, "payments: "+resp.Status, http.StatusBadGateway)
			return
		}
		var ch struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&ch)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"effect":"created","data":{"id":%q}}`, ch.ID)
	})
	_ = http.ListenAndServe(addr, mux)
	return 1
}

// endlessBody serves HTTP on addr: /healthz answers; every other request
// gets 200 and a body that never ends, chunk bytes at a time, with a
// pause after each when pause is above 0.
func endlessBody(addr string, chunk int, pause time.Duration) int {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		b := bytes.Repeat([]byte("x"), chunk)
		for {
			if _, err := w.Write(b); err != nil {
				return
			}
			if pause <= 0 {
				continue
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(pause):
			case <-r.Context().Done():
				return
			}
		}
	})
	_ = http.ListenAndServe(addr, mux)
	return 1
}
