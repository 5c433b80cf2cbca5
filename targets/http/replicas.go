package http

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
	"github.com/idemcheck/idemcheck/targets/process"
)

// MaxReplicas bounds replicas: enough to show that a lock or a cache held
// in each process does not hold across them, few enough for one machine.
const MaxReplicas = 8

// A scaled-out deployment runs several instances of one service over one
// shared store. A guard that holds its lock or cache inside the process
// (a mutex, an in-memory map) is correct with one instance and races with
// two: each instance's lock only excludes its own requests. With replicas,
// the target reaches its instances the way a load balancer would:
//
//   - sequential attempts go to each instance in turn (round-robin), so a
//     retry usually lands on another instance than the attempt it retries;
//   - a burst's copies are split among the instances (copy i to instance
//     i mod N) and released together, so the instances race each other.
//
// Every instance gets its own port ({{port}}) and the same state directory,
// environment and fakes. A crash kills every instance and restarts them
// all: what the restarted deployment finds is what the shared state kept.

// instance is one server of the target behind its own fault proxy.
type instance struct {
	base  string
	proxy *faults.Proxy
	// proc is the process serving it, when the harness started it.
	proc *process.Process
}

// newInstances starts a fault proxy in front of cfg.BaseURL and of every
// replica's URL.
func newInstances(cfg Config) ([]*instance, error) {
	bases := append([]string{cfg.BaseURL}, cfg.ReplicaURLs...)
	out := make([]*instance, 0, len(bases))
	for i, b := range bases {
		if i > 0 {
			b = loopbackURL(b)
		}
		p, err := faults.NewProxy(b, cfg.Timeout)
		if err != nil {
			for _, in := range out {
				_ = in.proxy.Close()
			}
			return nil, err
		}
		out = append(out, &instance{base: b, proxy: p})
	}
	return out, nil
}

// Replicas is how many instances serve the target.
func (t *Target) Replicas() int { return len(t.insts) }

// BaseURLs are where the target's instances listen (not their fault
// proxies), the first being BaseURL.
func (t *Target) BaseURLs() []string {
	out := make([]string, len(t.insts))
	for i, in := range t.insts {
		out[i] = in.base
	}
	return out
}

// pick is the instance the next call goes to, in turn. The runner makes
// its calls one at a time, in an order the seed fixes, so the instance of
// every attempt is reproducible too.
func (t *Target) pick() (*instance, string) {
	if len(t.insts) == 1 {
		return t.insts[0], ""
	}
	i := (t.next.Add(1) - 1) % uint64(len(t.insts))
	return t.insts[i], instanceName(int(i))
}

// instanceName is what the record calls instance i (from 0) of several.
func instanceName(i int) string { return "instance " + strconv.Itoa(i+1) }

// started says whether the harness started every instance's process, so
// that it can crash and restart them.
func (t *Target) started() bool {
	for _, in := range t.insts {
		if in.proc == nil {
			return false
		}
	}
	return true
}

// burstHosts are the host:port of each instance a burst's copies are
// split among; nil with one instance (the request's own host).
func (t *Target) burstHosts() []string {
	if len(t.insts) < 2 {
		return nil
	}
	out := make([]string, 0, len(t.insts))
	for _, in := range t.insts {
		u, err := url.Parse(in.base)
		if err != nil || u.Host == "" {
			return nil
		}
		out = append(out, u.Host)
	}
	return out
}

// errReplicasNeedPort is returned when replicas would all listen on one
// fixed address.
var errReplicasNeedPort = errors.New("replicas need {{port}} in the target's url (and start command): each instance listens on a port of its own")

// Down implements harness.Watched: how the first instance whose process
// exited by itself (no crash fault killed it) ended, or "". A process
// that exited with success while something still accepts connections at
// its instance's address is not down: a launcher that started the server
// elsewhere (docker compose up -d, a service manager) and returned.
func (t *Target) Down() string {
	for _, in := range t.insts {
		if in.proc == nil {
			continue
		}
		why, success := in.proc.ExitedByItself()
		if why == "" {
			continue
		}
		if success {
			if u, err := url.Parse(in.base); err == nil && u.Host != "" {
				c, err := net.DialTimeout("tcp", oncehttp.Address(u), time.Second)
				if err == nil {
					_ = c.Close()
					continue // the server it started still listens
				}
				why += "; nothing accepts connections at " + u.Host + " any more"
			}
		}
		return why
	}
	return ""
}
