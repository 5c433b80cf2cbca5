package main

import (
	"fmt"
	"io"

	"github.com/idemcheck/idemcheck/config"
	httptarget "github.com/idemcheck/idemcheck/targets/http"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
)

// printRemote says, before anything is sent, how a run is bounded for each
// target that may be remote.
func printRemote(w io.Writer, f *config.File) {
	for _, t := range f.Targets {
		s, ok := t.(*httpconfig.Section)
		if !ok || !s.Remote || s.Limits == nil {
			continue
		}
		fmt.Fprintf(w, "idemcheck: %s (%s) may be remote: at most %d requests, %g per second, each with User-Agent %q; only the faults a client can cause (timeouts, lost replies, duplicates), no crash or downstream fault\n",
			s.Name, s.URL, s.Limits.Requests, s.Limits.PerSecond, httptarget.UserAgent)
	}
}
