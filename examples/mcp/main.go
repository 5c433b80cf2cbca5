package mcp

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs a reference server: over stdio by default, over streamable
// HTTP at /mcp (and /healthz) with --listen. It returns the exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "correct", "the server's profile")
	payments := fs.String("payments", os.Getenv("PAYMENTS_URL"), "the payments API's base URL (default $PAYMENTS_URL)")
	state := fs.String("state", os.Getenv("STATE_DIR"), "the state directory (default $STATE_DIR)")
	email := fs.String("email", os.Getenv("EMAIL_URL"), "the email API's base URL, for the profiles that send receipts (default $EMAIL_URL)")
	listen := fs.String("listen", "", "serve streamable HTTP on this loopback address instead of stdio")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p, err := Describe(*profile)
	if err != nil || *payments == "" || (*state == "" && p.guard == "durable") {
		fmt.Fprintf(stderr, "mcp: need --profile (one of the reference profiles), --payments URL and --state DIR: %v\n", err)
		return 2
	}
	srv, err := newServer(p, *payments, *email, *state)
	if err != nil {
		fmt.Fprintf(stderr, "mcp: %v\n", err)
		return 1
	}
	if *listen == "" {
		t := &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
		if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "mcp: %v\n", err)
			return 1
		}
		return 0
	}
	return serveHTTP(ctx, srv, *listen, stderr)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveHTTP(ctx context.Context, srv *sdk.Server, addr string, stderr io.Writer) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "mcp: --listen %q: expected a loopback address such as 127.0.0.1:8080\n", addr)
		return 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcp: %v\n", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "mcp: %v\n", err)
		return 1
	}
	return 0
}
