package config_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/harness"
)

// The configuration lives in a directory of its own, and idemcheck runs
// elsewhere (the test's working directory): the tool is found from the
// file's directory, and {{env.NAME}} reaches its environment.
func TestRelativePathsAndEnvReachACLITool(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_TOKEN", "tok_3f9a8b7c6d5e")
	dir := filepath.Join(t.TempDir(), "project")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	tool := "#!/bin/sh\nprintf '{\"ok\":true,\"effect\":\"created\",\"data\":{\"id\":\"%s\"}}\\n' \"$TOKEN\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "tool"), []byte(tool), 0o755))
	cfg := filepath.Join(dir, "idemcheck.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`version: 1
targets:
  - name: tool
    kind: cli
    command: [./bin/tool]
    env: {TOKEN: "{{env.IDEMCHECK_TEST_TOKEN}}"}
    operations:
      - {name: create, mutating: true, args: [create, "{{marker}}"]}
`), 0o644))

	f, err := config.Load(cfg)
	require.NoError(t, err)
	assert.Equal(t, dir, f.BaseDir())
	require.NoError(t, f.CheckPrograms(), "./bin/tool is next to the file, not in the working directory")
	assert.Equal(t, "{{env.IDEMCHECK_TEST_TOKEN}}", cliAt(t, f, 0).Env["TOKEN"], "the File keeps what was written")
	assert.Contains(t, f.Secrets(), "tok_3f9a8b7c6d5e")

	specs, _, err := f.Specs()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	tg, err := specs[0].Start(ctx, &harness.Env{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer tg.Close()
	rep := tg.Call(ctx, harness.Call{ID: "a-1", Operation: "create", Key: "k1", Marker: "idem-1"})
	assert.Equal(t, harness.OK, rep.Outcome, "%+v", rep)
	assert.Equal(t, "tok_3f9a8b7c6d5e", rep.Identity, "the tool saw the variable's value")
}

// A program that is not next to the file is reported with where it was
// looked for, at its line and column.
func TestRelativeProgramIsTakenFromTheFileDirectory(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sub", "idemcheck.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	require.NoError(t, os.WriteFile(cfg, []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: "http://127.0.0.1:{{port}}"
    start: {command: [./server], dir: ../work}
    operations:
      - {name: charge, mutating: true, method: POST, path: "/c/{{marker}}"}
`), 0o644))
	f, err := config.Load(cfg)
	require.NoError(t, err)
	err = f.CheckPrograms()
	require.Error(t, err)
	assert.Contains(t, err.Error(), cfg+`:6:39: targets[0].start.dir: the directory "../work" does not exist (a relative path is taken from the directory of the configuration file, `+filepath.Dir(cfg)+")")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "work"), 0o755))
	err = f.CheckPrograms()
	require.Error(t, err)
	assert.Contains(t, err.Error(), cfg+`:6:23: targets[0].start.command[0]: the program "./server" does not exist (looked for at `+filepath.Join(dir, "work", "server"))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "work", "server"), []byte("#!/bin/sh\n"), 0o755))
	assert.NoError(t, f.CheckPrograms())
}

// {{env.NAME}} in a header is sent with its value; the value is a
// secret, and so is any credential written in a header.
func TestEnvInHeaderIsSentAndSecret(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_API_TOKEN", "sk_test_51Habc")
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		_, _ = io.WriteString(w, `{"effect":"created","data":{"id":"c1"}}`)
	}))
	defer srv.Close()
	f, err := config.Parse("idemcheck.yaml", []byte(fmt.Sprintf(`version: 1
targets:
  - name: shop
    kind: http
    url: %q
    operations:
      - name: charge
        mutating: true
        method: POST
        path: /charges
        headers:
          Authorization: "Bearer {{env.IDEMCHECK_TEST_API_TOKEN}}"
          X-Api-Key: literal-key-1234
          X-Trace: "{{marker}}"
`, srv.URL)))
	require.NoError(t, err)
	assert.Equal(t, []string{"literal-key-1234", "sk_test_51Habc"}, f.Secrets())

	specs, _, err := f.Specs()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	tg, err := specs[0].Start(ctx, &harness.Env{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer tg.Close()
	rep := tg.Call(ctx, harness.Call{ID: "a-1", Operation: "charge", Key: "k1", Marker: "idem-1"})
	require.Equal(t, harness.OK, rep.Outcome, "%+v", rep)
	select {
	case h := <-got:
		assert.Equal(t, "Bearer sk_test_51Habc", h.Get("Authorization"))
		assert.Equal(t, "literal-key-1234", h.Get("X-Api-Key"))
	case <-ctx.Done():
		t.Fatal("the target never saw the request")
	}
}

func TestEnvPlaceholderErrors(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_SET", "value-1234")
	os.Unsetenv("IDEMCHECK_TEST_UNSET")
	for _, tc := range []struct {
		why, from, to, want string
	}{
		{"an unset variable is named, at its line and column",
			"    operations:", "    operations:\n", "idemcheck.yaml:13:34: targets[0].operations[0].headers.Authorization: {{env.IDEMCHECK_TEST_UNSET}}: the environment variable IDEMCHECK_TEST_UNSET is not set"},
		{"not in a body, where it would reach the target's data and the reports",
			`body: '{"description": "{{marker}}"}'`, `body: '{"description": "{{marker}} {{env.IDEMCHECK_TEST_SET}}"}'`, "idemcheck.yaml:11:15: targets[0].operations[0].body: {{env.IDEMCHECK_TEST_SET}} is not allowed here"},
		{"not in a path",
			"path: /charges", "path: /charges/{{env.IDEMCHECK_TEST_SET}}", "targets[0].operations[0].path: {{env.IDEMCHECK_TEST_SET}} is not allowed here"},
		{"a name that is no variable name",
			"    operations:", "    operations:\n", ""},
	} {
		t.Run(tc.why, func(t *testing.T) {
			yml := strings.Replace(minimal, tc.from, tc.to, 1)
			if strings.HasPrefix(tc.why, "an unset") {
				yml += "        headers: {Authorization: \"Bearer {{env.IDEMCHECK_TEST_UNSET}}\"}\n"
			}
			if strings.HasPrefix(tc.why, "a name") {
				yml += "        headers: {X-Token: \"{{env.9X}}\"}\n"
				tc.want = `invalid environment variable name "9X"`
			}
			_, err := config.Parse("idemcheck.yaml", []byte(yml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "value-1234", "an error never shows a value")
		})
	}
}

func TestEnvInURLAndStartEnv(t *testing.T) {
	t.Setenv("IDEMCHECK_TEST_PORT", "18080")
	t.Setenv("IDEMCHECK_TEST_DB", "postgres://app:pw-9876@127.0.0.1/shop")
	_, err := config.Parse("idemcheck.yaml", []byte(`version: 1
targets:
  - name: shop
    kind: http
    url: "http://127.0.0.1:{{env.IDEMCHECK_TEST_PORT}}"
    start:
      command: [./shop, --listen, "127.0.0.1:{{env.IDEMCHECK_TEST_PORT}}"]
      env: {DATABASE_URL: "{{env.IDEMCHECK_TEST_DB}}"}
    operations:
      - {name: charge, mutating: true, method: POST, path: "/c/{{marker}}"}
`))
	require.Error(t, err, "a command line may not take a secret")
	assert.Contains(t, err.Error(), "targets[0].start.command[2]: {{env.IDEMCHECK_TEST_PORT}} is not allowed here")
	assert.NotContains(t, err.Error(), "targets[0].url")
	assert.NotContains(t, err.Error(), "targets[0].start.env")
}

func TestSecretHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "X-Api-Key": true,
		"X-Auth-Token": true, "Stripe-Secret": true, "apikey": true,
		"Idempotency-Key": false, "Content-Type": false, "X-Trace": false, "Accept": false,
	} {
		assert.Equal(t, want, config.SecretHeader(name), name)
	}
}
