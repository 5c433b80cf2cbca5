package faults_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/idemcheck/idemcheck/faults"
)

// Faults are made by name from a registry, with settings as configuration
// gives them; a misspelt setting is an error, never ignored.
func ExampleRegistry_New() {
	r := faults.Builtin()
	f, err := r.New("client-timeout", map[string]any{"timeout": "300ms"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Name(), f.(faults.ClientFault).ClientTimeout())

	_, err = r.New("client-timeout", map[string]any{"timout": "1s"})
	fmt.Println(err)
	// Output:
	// client-timeout 300ms
	// fault client-timeout: settings: timout: unknown setting (client-timeout takes timeout)
}

// The proxy sits between a client and the target. Here a lost response:
// the target creates the order, the client is told 503, and the proxy's
// report says the target's reply was withheld.
func ExampleProxy() {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"effect":"created"}`)
	}))
	defer target.Close()

	p, err := faults.NewProxy(target.URL, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	p.Arm("attempt-1", &faults.LostResponse{Status: http.StatusServiceUnavailable})
	req, _ := http.NewRequest(http.MethodPost, p.URL()+"/orders", nil)
	req.Header.Set(faults.AttemptHeader, "attempt-1")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	rep, _ := p.Report(context.Background(), "attempt-1", 5*time.Second)
	fmt.Println("client saw", resp.StatusCode)
	fmt.Printf("forwarded=%v withheld=%v upstream=%d\n", rep.Forwarded, rep.Withheld, rep.UpstreamStatus)
	// Output:
	// client saw 503
	// forwarded=true withheld=true upstream=201
}
