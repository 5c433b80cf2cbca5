package fakes_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
)

// This file is the worked example of CREATING_FAKES.md: a fake made the
// way the guide says, an SMS provider, registered in a Registry of the
// test's own, then configured, refused, started and reached by its
// placeholder.

// smsServer is step 1: a real server on loopback that records each
// message it is sent, with its markers, in the ledger it is given.
type smsServer struct {
	ledger *fakes.Ledger
	ln     net.Listener
	srv    *http.Server
}

func newSMS(addr string, ledger *fakes.Ledger) (*smsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &smsServer{ledger: ledger, ln: ln}
	s.srv = &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e := ledger.Record(fakes.Effect{Fake: "sms", Kind: "message", Markers: fakes.FindMarkers(body), Key: r.Header.Get("Idempotency-Key")})
		_, _ = io.WriteString(w, `{"id":"`+e.ID+`"}`)
	})}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *smsServer) Name() string          { return "sms" }
func (s *smsServer) URL() string           { return "http://" + s.ln.Addr().String() }
func (s *smsServer) Ledger() *fakes.Ledger { return s.ledger }
func (s *smsServer) Arm(fakes.Rule)        {}
func (s *smsServer) Disarm()               {}
func (s *smsServer) DisarmMarker(string)   {}
func (s *smsServer) Close() error          { return s.srv.Close() }

// smsSettings is step 2: the fake's section of the configuration file.
type smsSettings struct {
	// Listen fixes the fake's address; empty means a free port.
	Listen string `yaml:"listen,omitempty"`
}

func (s *smsSettings) Addresses() []*string { return []*string{&s.Listen} }
func (s *smsSettings) Defaults()            {}
func (s *smsSettings) Starter(string) fakes.Starter {
	return func(_ context.Context, l *fakes.Ledger) (fakes.Fake, error) {
		addr := s.Listen
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		return newSMS(addr, l)
	}
}

// smsDescriptor is step 3.
var smsDescriptor = fakes.Descriptor{
	Name:    "sms",
	Summary: "an SMS provider",
	Endpoints: []fakes.Endpoint{{
		Placeholder: "url", Field: "listen", Flag: "sms", What: "the SMS fake", Env: "SMS_URL",
		Serves: "POST /messages", Value: fakes.URL,
	}},
	New: func() fakes.Settings { return &smsSettings{} },
}

// smsRegistry is step 4: the registry line (here a test's own registry,
// for config.Builtin's is idemcheck's).
func smsRegistry() *config.Registry {
	reg := config.Builtin()
	reg.Fakes = append(reg.Fakes, smsDescriptor)
	return reg
}

const smsYAML = `version: 1
fakes:
  sms: {listen: "LISTEN"}
targets:
  - name: notifier
    kind: cli
    command: [./notifier]
    env: {SMS_URL: "{{fakes.sms.url}}"}
    operations:
      - {name: notify, mutating: true, args: [notify, "{{marker}}"]}
`

func TestCreatingFakesExample(t *testing.T) {
	reg := smsRegistry()
	parse := func(listen string) (*config.File, error) {
		return reg.Parse("sms.yaml", []byte(strings.Replace(smsYAML, "LISTEN", listen, 1)))
	}

	t.Run("configured, its placeholder allowed, its fixed address listed", func(t *testing.T) {
		f, err := parse("127.0.0.1:4299")
		require.NoError(t, err)
		require.IsType(t, &smsSettings{}, f.Fakes["sms"])
		assert.Equal(t, []config.FixedAddress{{Fake: "sms", Addr: "127.0.0.1:4299", Path: "fakes.sms.listen"}}, f.FixedAddresses())
	})

	t.Run("its fixed address is checked: loopback, a port, free", func(t *testing.T) {
		_, err := parse("10.1.2.3:4299")
		assert.ErrorContains(t, err, `sms.yaml:3:17: fakes.sms.listen: host "10.1.2.3" is not a loopback address`)
		_, err = parse("127.0.0.1:http")
		assert.ErrorContains(t, err, `fakes.sms.listen: invalid port "http"`)

		taken, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer taken.Close()
		f, err := parse(taken.Addr().String())
		require.NoError(t, err)
		assert.ErrorContains(t, f.CheckFree(), "sms.yaml:3:17: fakes.sms.listen: "+taken.Addr().String()+" cannot be bound")
	})

	t.Run("a typo in its section, and its placeholder without it", func(t *testing.T) {
		_, err := reg.Parse("sms.yaml", []byte(strings.Replace(smsYAML, `{listen: "LISTEN"}`, `{lisen: x}`, 1)))
		assert.ErrorContains(t, err, `fakes.sms.lisen: unknown field "lisen" (did you mean "listen"? known fields: listen)`)
		_, err = reg.Parse("sms.yaml", []byte(strings.Replace(smsYAML, "  sms: {listen: \"LISTEN\"}\n", "  payments: {}\n", 1)))
		assert.ErrorContains(t, err, "targets[0].env.SMS_URL: {{fakes.sms.url}} needs the sms fake, which is not configured: add `fakes: {sms: {}}`")
	})

	t.Run("started by the specs, reached at its placeholder, recording what it is sent", func(t *testing.T) {
		f, err := parse("")
		require.NoError(t, err)
		specs, _, err := f.Specs()
		require.NoError(t, err)
		require.Len(t, specs[0].Fakes, 1)
		ledger := fakes.NewLedger()
		fake, err := specs[0].Fakes[0](context.Background(), ledger)
		require.NoError(t, err)
		defer fake.Close()
		env := &harness.Env{Fakes: map[string]fakes.Fake{fake.Name(): fake}}
		url := env.Vars()["fakes.sms.url"]
		require.Equal(t, fake.URL(), url, "the harness fills in {{fakes.sms.url}}")
		require.NoError(t, post(url+"/messages", "hello idem-0123456789abcdef"))
		require.Len(t, ledger.Effects(), 1)
		assert.Equal(t, []string{"idem-0123456789abcdef"}, ledger.Effects()[0].Markers)
	})

	t.Run("without the registry line, the file cannot name it", func(t *testing.T) {
		_, err := config.Parse("sms.yaml", []byte(strings.Replace(smsYAML, "LISTEN", "", 1)))
		assert.ErrorContains(t, err, `fakes.sms: unknown field "sms"`)
	})
}

// TestEveryFakeIsRegistered: a fakes/* package that declares a Descriptor
// (step 3 of CREATING_FAKES.md) has its line in config.Builtin (step 4).
func TestEveryFakeIsRegistered(t *testing.T) {
	dirs, err := os.ReadDir(".")
	require.NoError(t, err)
	var declared []string
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d.Name(), "descriptor.go")); err == nil && strings.Contains(string(b), "var Descriptor = fakes.Descriptor{") {
			declared = append(declared, d.Name())
		}
	}
	var registered []string
	for _, d := range config.Builtin().Fakes {
		registered = append(registered, d.Name)
	}
	assert.ElementsMatch(t, declared, registered, "config.Builtin lists every fake package's Descriptor")
}

// TestEveryFakeEndpointIsFilledIn: for every registered fake, started as
// its settings say, the harness fills in the placeholder of each of its
// endpoints with the endpoint's address. A fake with an endpoint the
// harness does not know fails here.
func TestEveryFakeEndpointIsFilledIn(t *testing.T) {
	flags := map[string]string{}
	for _, d := range config.Builtin().Fakes {
		for _, e := range d.Endpoints {
			assert.NotEmpty(t, e.What, "%s: the flag --%s says what listens", d.Name, e.Flag)
			other, dup := flags[e.Flag]
			assert.False(t, dup, "%s and %s both want the flag --%s", d.Name, other, e.Flag)
			flags[e.Flag] = d.Name
		}
	}
	for _, d := range config.Builtin().Fakes {
		t.Run(d.Name, func(t *testing.T) {
			s := d.New()
			s.Defaults()
			f, err := s.Starter("")(context.Background(), fakes.NewLedger())
			require.NoError(t, err)
			defer f.Close()
			assert.Equal(t, d.Name, f.Name(), "the fake's name is its descriptor's")
			vars := (&harness.Env{Fakes: map[string]fakes.Fake{d.Name: f}}).Vars()
			for _, e := range d.Endpoints {
				assert.Equal(t, e.Value(f), vars["fakes."+d.Name+"."+e.Placeholder], e.Placeholder)
				assert.NotEmpty(t, e.Value(f))
			}
		})
	}
}

func post(url, body string) error {
	resp, err := http.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}
