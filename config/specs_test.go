package config_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/email"
	"github.com/idemcheck/idemcheck/fakes/payments"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/consumer"
	"github.com/idemcheck/idemcheck/targets/container"
	mcptarget "github.com/idemcheck/idemcheck/targets/mcp"
	"github.com/idemcheck/idemcheck/targets/webhook"
)

// everyKind is a configuration with a target of each kind and every fake.
const everyKind = `version: 1
fakes:
  payments: {}
  email: {}
  webhooks: {honour_keys: false, key_header: X-Delivery}
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
  - name: orders
    kind: cli
    command: [./ordertool]
    operations:
      - {name: create-order, mutating: true, args: [create-order, --memo, '{{marker}}']}
  - name: hooks
    kind: webhook
    url: "http://127.0.0.1:{{port}}"
    start: {command: [./hooks, --listen, "127.0.0.1:{{port}}", --notify, "{{fakes.webhooks.url}}"]}
    signature: {secret: whsec_x, scheme: hex, prefix: "sha256="}
    events:
      - {name: invoice.paid, path: /webhooks, body: '{"id":"{{key}}","memo":"{{marker}}"}'}
  - name: boxed
    kind: container
    image: shop:1.4
    cmd: [--listen, "127.0.0.1:{{port}}", --payments, "{{fakes.payments.url}}"]
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
  - name: built
    kind: container
    build: {binary: BINARY}
    port: 8080
    env: {SMTP: "{{fakes.email.smtp}}"}
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
  - name: tools
    kind: mcp
    command: [./mcpserver]
    key_meta: idempotency-key
    tools:
      - {name: create_payment, marker: description}
  - name: remote-tools
    kind: mcp
    url: "http://127.0.0.1:{{port}}/mcp"
    start: {command: [./mcpserver, --listen, "127.0.0.1:{{port}}"], ready: {path: /healthz}}
`

// mustBuild parses yml, with BINARY replaced by the path of an existing
// file, and builds its specs.
func mustBuild(t *testing.T, yml string) []harness.Spec {
	t.Helper()
	yml = strings.ReplaceAll(yml, "BINARY", strconv.Quote(someFile(t)))
	f, err := config.Parse("idemcheck.yaml", []byte(yml))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	return specs
}

// TestBuildKinds: each kind of target becomes a spec of its adapter's
// kind, which is what the reports show, with every configured fake.
func TestBuildKinds(t *testing.T) {
	specs := mustBuild(t, everyKind)
	byName := map[string]harness.Spec{}
	for _, s := range specs {
		byName[s.Name] = s
	}
	for _, tc := range []struct {
		why, name, kind string
	}{
		{"an http target is reached by the HTTP adapter", "shop", "http"},
		{"a cli target runs the tool once per call", "orders", clitarget.Kind},
		{"a webhook target gets signed deliveries", "hooks", webhook.Kind},
		{"a container target runs an image the engine has", "boxed", container.Kind},
		{"a container target can build its image first", "built", container.Kind},
		{"an mcp target over stdio is reached by the MCP adapter", "tools", mcptarget.Kind},
		{"an mcp target over streamable HTTP too", "remote-tools", mcptarget.Kind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := byName[tc.name]
			require.True(t, ok, "no spec for %s", tc.name)
			assert.Equal(t, tc.kind, s.Kind, tc.why)
			assert.Len(t, s.Fakes, 3, "payments, email and webhooks start for every target")
			assert.NotNil(t, s.Start)
		})
	}
	assert.Len(t, specs, 7)
}

// Each kind of the registry is its adapter's: the name a file writes is
// the kind its specs report.
func TestConfigKindsAreTheAdapters(t *testing.T) {
	var names []string
	for _, k := range config.Builtin().Kinds {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"http", clitarget.Kind, webhook.Kind, container.Kind, mcptarget.Kind, consumer.Kind}, names)
	assert.Equal(t, mcptarget.DefaultEffectJSON, config.DefaultEffectJSON)
	assert.Equal(t, mcptarget.DefaultIdentityJSON, config.DefaultIdentityJSON)
}

// TestWebhooksFakeFromConfig: the sink starts as fakes.webhooks says:
// named webhooks (so {{fakes.webhooks.url}} is its URL), de-duplicating by
// key_header unless honour_keys is false.
func TestWebhooksFakeFromConfig(t *testing.T) {
	for _, tc := range []struct {
		why     string
		fake    string
		header  string
		effects int
	}{
		{"by default a redelivery with the same Idempotency-Key is recorded once", "{}", "Idempotency-Key", 1},
		{"key_header names the header the sink de-duplicates by", "{key_header: X-Delivery}", "X-Delivery", 1},
		{"another header is not a key", "{key_header: X-Delivery}", "Idempotency-Key", 2},
		{"honour_keys: false records every delivery", "{honour_keys: false, key_header: X-Delivery}", "X-Delivery", 2},
	} {
		t.Run(tc.why, func(t *testing.T) {
			yml := strings.Replace(minimalHTTP, "fakes: {}", "fakes: {webhooks: "+tc.fake+"}", 1)
			spec := mustBuild(t, yml)[0]
			require.Len(t, spec.Fakes, 1)
			ledger := fakes.NewLedger()
			fake, err := spec.Fakes[0](context.Background(), ledger)
			require.NoError(t, err)
			defer fake.Close()
			assert.Equal(t, "webhooks", fake.Name())
			for range 2 {
				req, err := http.NewRequest(http.MethodPost, fake.URL()+"/hooks/orders", strings.NewReader(`{"memo":"idem-00000000000000b1"}`))
				require.NoError(t, err)
				req.Header.Set(tc.header, "k1")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
			assert.Len(t, ledger.Effects(), tc.effects)
		})
	}
}

// minimalHTTP is a valid file with one http target and no fakes.
const minimalHTTP = `version: 1
fakes: {}
targets:
  - name: shop
    kind: http
    url: http://127.0.0.1:8080
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
`

// noDocker points the Docker client at a socket that does not exist.
func noDocker(t *testing.T) string {
	t.Helper()
	endpoint := "unix://" + filepath.Join(t.TempDir(), "no-docker.sock")
	t.Setenv("DOCKER_HOST", endpoint)
	return endpoint
}

// TestContainerWithoutDocker: a container target reaches Docker only when
// it starts, so a missing engine is that target's error (the harness could
// not test it: exit 3), with the reason, and never a configuration error.
func TestContainerWithoutDocker(t *testing.T) {
	endpoint := noDocker(t)
	for _, tc := range []struct{ why, which string }{
		{"an image to run", "image: shop:1.4"},
		{"an image to build first: the build needs the engine too", "build: {binary: BINARY}"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			spec := mustBuild(t, strings.Replace(`version: 1
targets:
  - name: boxed
    kind: container
    IMAGE
    cmd: [--listen, "127.0.0.1:{{port}}", --state, "{{state_dir}}"]
    operations:
      - {name: charge, mutating: true, method: POST, path: /charges, body: '{{marker}}'}
`, "IMAGE", tc.which, 1))[0]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			target, err := spec.Start(ctx, &harness.Env{Fakes: map[string]fakes.Fake{}, StateDir: t.TempDir(), RunID: "test"})
			require.Error(t, err)
			assert.Nil(t, target)
			var unreachable *container.UnreachableError
			require.ErrorAs(t, err, &unreachable, "%v", err)
			assert.Equal(t, endpoint, unreachable.Endpoint)
			assert.True(t, strings.HasPrefix(err.Error(), "target boxed: Docker is not reachable at "+endpoint), err.Error())
		})
	}

}

// someFile returns the path of a file that exists.
func someFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop")
	require.NoError(t, os.WriteFile(path, []byte("not really a binary"), 0o755))
	return path
}

// TestContainerBuildFromConfig builds a reference shop into an image from
// a build: section, starts it as the configuration says, and checks what
// the container got. It needs a Docker engine, and skips without one.
func TestContainerBuildFromConfig(t *testing.T) {
	pool, err := container.Connect(context.Background(), "")
	if err != nil {
		t.Skipf("skipping: building a container target needs a running Docker engine, and CI must have one:\n%v", err)
	}
	t.Cleanup(pool.Client.HTTPClient.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "shop")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = "go" // go test puts its own toolchain first on PATH
	}
	gobuild := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./examples/http/correct")
	gobuild.Dir = ".."
	gobuild.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	out, err := gobuild.CombinedOutput()
	require.NoError(t, err, "go build of the shop: %s", out)

	spec := mustBuild(t, fmt.Sprintf(`version: 1
fakes: {payments: {}, email: {}}
targets:
  - name: built
    kind: container
    build: {binary: %q, name: idemcheck-test/config-shop, tag: test}
    cmd: [--listen, "127.0.0.1:{{port}}", --payments, "{{fakes.payments.url}}", --state, "{{state_dir}}"]
    env: {SMTP_FOR_TEST: "{{fakes.email.smtp}}"}
    ready: {path: /healthz}
    dry_run: {query: dry_run}
    operations:
      - name: create-order
        mutating: true
        method: POST
        path: /orders
        body: '{"customer":"cus_1","amount":100,"memo":"{{marker}}"}'
`, bin))[0]
	assert.Equal(t, container.Kind, spec.Kind)

	ledger := fakes.NewLedger()
	pay, err := payments.New(payments.Options{Ledger: ledger})
	require.NoError(t, err)
	defer pay.Close()
	mail, err := email.New(email.Options{Ledger: ledger})
	require.NoError(t, err)
	defer mail.Close()
	env := &harness.Env{Fakes: map[string]fakes.Fake{"payments": pay, "email": mail}, Ledger: ledger, StateDir: t.TempDir(), RunID: "config-test"}
	target, err := spec.Start(ctx, env)
	require.NoError(t, err)
	ct, ok := target.(*container.Target)
	require.True(t, ok, "a %T", target)
	id := ct.ContainerID()
	c, err := pool.Client.InspectContainerWithContext(id, ctx)
	require.NoError(t, err)
	img, err := pool.Client.InspectImage("idemcheck-test/config-shop:test")
	require.NoError(t, err, "the image is built under the name and tag given")
	assert.Equal(t, img.ID, c.Config.Image, "the container runs the image built, by its id")
	assert.Contains(t, c.Config.Env, "SMTP_FOR_TEST="+mail.SMTPAddr(), "{{fakes.NAME.smtp}} is filled in for a container")

	reply := target.Call(ctx, harness.Call{Operation: "create-order", Key: "k-config-test", Marker: "idem-00000000000000c1"})
	assert.Equal(t, harness.OK, reply.Outcome, "%+v", reply)
	assert.Len(t, ledger.ByMarker("idem-00000000000000c1"), 1, "the container charged the payments fake on the host's loopback")

	require.NoError(t, target.Close())
	_, err = pool.Client.InspectContainerWithContext(id, ctx)
	assert.Error(t, err, "the container is removed when the target closes")
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}

// TestConfigKnowsWhatTheHarnessDoes keeps the configuration's lists of
// names in step with the code that gives them meaning.
func TestConfigKnowsWhatTheHarnessDoes(t *testing.T) {
	reg := config.Builtin()
	known := faults.Builtin()
	consumer.RegisterFaults(known)
	assert.Equal(t, known.Names(), reg.Faults.Names(), "every registered fault and every redelivery fault, and only those, can be configured")
	assert.Equal(t, harness.DefaultFaultNames, reg.DefaultFaults, "a file without faults gets the harness's defaults")
	for _, name := range reg.DefaultFaults {
		assert.Contains(t, reg.Faults.Names(), name, "a default fault is a registered one")
	}
	for _, c := range harness.Checks() {
		assert.Contains(t, config.KnownChecks, c.ID)
	}
	for _, id := range config.KnownChecks {
		assert.True(t, harness.KnownCheck(id), "config accepts %s, which the harness does not implement", id)
	}
}

func TestFaultSettingErrorsHaveAPosition(t *testing.T) {
	f, err := config.Parse("x.yaml", []byte(`version: 1
targets:
  - name: t
    kind: http
    url: http://127.0.0.1:9/
    operations:
      - {name: op, mutating: true, method: POST, path: "/x?m={{marker}}"}
faults:
  - {name: client-timeout, timout: 1s}
`))
	assert.Nil(t, f)
	assert.ErrorContains(t, err, "x.yaml:9:36: faults[0].timout: unknown setting")
}

// fresh_trials gives the target's spec the option; without it, trials
// share one running target.
func TestFreshTrialsFromConfig(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		src := fmt.Sprintf(`version: 1
targets:
  - name: tool
    kind: cli
    command: [./tool]
    fresh_trials: %v
    operations: [{name: create, mutating: true, args: [create, "{{marker}}"]}]
`, fresh)
		assert.Equal(t, fresh, firstTargetOptions(t, "fresh.yaml", src).FreshTrials)
	}
}

// trial_workers gives the target's spec the option; out of range, it is
// an error that names the file, the line and the field.
func TestTrialWorkersFromConfig(t *testing.T) {
	src := func(n int) string {
		return fmt.Sprintf(`version: 1
targets:
  - name: tool
    kind: cli
    command: [./tool]
    trial_workers: %d
    operations: [{name: create, mutating: true, args: [create, "{{marker}}"]}]
`, n)
	}
	assert.Equal(t, 8, firstTargetOptions(t, "workers.yaml", src(8)).TrialWorkers)

	for _, n := range []int{-1, section.MaxTrialWorkers + 1} {
		_, err := config.Parse("workers.yaml", []byte(src(n)))
		require.Error(t, err, "%d workers", n)
		assert.ErrorContains(t, err, "workers.yaml:6")
		assert.ErrorContains(t, err, "targets[0].trial_workers")
		assert.ErrorContains(t, err, "out of range")
	}
}

// firstTargetOptions parses the configuration src (named name) and
// returns the options its first target's spec carries.
func firstTargetOptions(t *testing.T, name, src string) harness.Options {
	t.Helper()
	f, err := config.Parse(name, []byte(src))
	require.NoError(t, err)
	specs, _, err := f.Specs()
	require.NoError(t, err)
	var o harness.Options
	for _, opt := range specs[0].Options {
		opt(&o)
	}
	return o
}
