package harness

import (
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/internal/memnet"
)

// fakesClient reaches the fakes of this process in memory (they listen
// there too, at their loopback address) and anything else over TCP.
var fakesClient = newFakesClient()

func newFakesClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         memnet.DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}}
}

// HTTPClient is the client for a target served in this process (a Go
// handler, see targets/http.CheckHandler) to call the fakes with: it
// reaches a fake in memory, without a socket, and any other address over
// TCP, as http.DefaultClient would. A handler that calls the fakes with
// another client still reaches them, over loopback, except in a bubble of
// testing/synctest, where the fakes take no connection over TCP (see
// targets/http.CheckHandler).
func (e *Env) HTTPClient() *http.Client {
	if e.client != nil {
		return e.client
	}
	return fakesClient
}
