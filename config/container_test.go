package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/targets/container"
)

// minimalContainer is a valid file with one container target, for the
// rows below to break one way at a time. Line numbers in the rows refer to
// their own text.
const minimalContainer = `version: 1
fakes: {payments: {}}
targets:
  - name: shop
    kind: container
    image: shop:1.4
    cmd: [--listen, "127.0.0.1:{{port}}", --payments, "{{fakes.payments.url}}"]
    operations:
      - name: charge
        mutating: true
        method: POST
        path: /charges
        body: '{"description": "{{marker}}"}'
`

func TestMinimalContainerDefaults(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(minimalContainer))
	require.NoError(t, err)
	tg := containerAt(t, f, 0)
	assert.Equal(t, "shop:1.4", tg.Image)
	assert.Equal(t, "http://127.0.0.1:{{port}}", tg.URL, "the container listens on the host's loopback")
	assert.Equal(t, &config.Ready{Path: "/", Timeout: config.Duration(10 * time.Second)}, tg.Ready)
	assert.Equal(t, "Idempotency-Key", tg.KeyHeader, "an http target's defaults")
	assert.Equal(t, config.Locator{JSON: "effect"}, tg.Effect)
	assert.Equal(t, config.Locator{JSON: "data.id"}, tg.Identity)
	assert.Equal(t, 10*time.Second, tg.Timeout.Std())
}

func TestContainerBuildDefaults(t *testing.T) {
	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalContainer, "image: shop:1.4", "build: {binary: ./bin/shop}", 1)))
	require.NoError(t, err)
	assert.Equal(t, &container.BuildSection{Binary: "./bin/shop", Name: "idemcheck-shop"}, containerAt(t, f, 0).Build,
		"the image is named after the target, with a prefix that keeps it off the user's own images")
	assert.Empty(t, containerAt(t, f, 0).Image)
}

func TestContainerWithAFixedPort(t *testing.T) {
	_, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalContainer,
		`    cmd: [--listen, "127.0.0.1:{{port}}", --payments, "{{fakes.payments.url}}"]`,
		"    port: 8080\n    env: {PAYMENTS_URL: \"{{fakes.payments.url}}\", SMTP: \"{{fakes.email.smtp}}\"}", 1)))
	require.Error(t, err, "the email fake is not configured")
	assert.Contains(t, err.Error(), "idemcheck.yaml:8:57: targets[0].env.SMTP: {{fakes.email.smtp}} needs the email fake")

	f, err := config.Parse("idemcheck.yaml", []byte(strings.Replace(minimalContainer,
		`    cmd: [--listen, "127.0.0.1:{{port}}", --payments, "{{fakes.payments.url}}"]`,
		"    port: 8080\n    env: {PAYMENTS_URL: \"{{fakes.payments.url}}\"}", 1)))
	require.NoError(t, err, "an image that always listens on 8080 needs no {{port}}")
	assert.Equal(t, "8080", containerAt(t, f, 0).Port)
	assert.Nil(t, containerAt(t, f, 0).Cmd)
}

func TestContainerParseErrors(t *testing.T) {
	for _, tc := range []struct {
		why  string
		yaml string
		want []want
	}{
		{
			why:  "image and build are two ways to say which image: one of them, not both",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    build: {binary: ./shop}\n", 1),
			want: []want{{7, 12, "targets[0].build", "set image or build, not both"}},
		},
		{
			why:  "and not neither: reported where the target starts",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "", 1),
			want: []want{{4, 5, "targets[0].image", "missing: set image (an image the Docker engine has, such as \"shop:1.4\"; nothing is pulled) or build: {binary: ./shop}"}},
		},
		{
			why:  "an empty image is written, so reported where it is written",
			yaml: strings.Replace(minimalContainer, "image: shop:1.4", `image: ""`, 1),
			want: []want{{6, 12, "targets[0].image", "must not be empty: set image"}},
		},
		{
			why:  "a misspelt build field is reported at its key, with the fields a build has; the binary is then missing",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    build: {binray: ./shop}\n", 1),
			want: []want{
				{6, 12, "targets[0].build.binary", "missing: the path of a static Linux binary"},
				{6, 13, "targets[0].build.binray", `unknown field "binray" (did you mean "binary"? known fields: binary, name, tag)`},
			},
		},
		{
			why:  "a misspelt target field lists the fields of its kind",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    imgae: shop:1.4\n    image: shop:1.4\n", 1),
			want: []want{{6, 5, "targets[0].imgae", `unknown field "imgae" (did you mean "image"? known fields: name, kind, key_format, timeout, identity, fresh_trials, trial_workers, observe, dependencies, url, key_header, effect, dry_run, operations, callers, profile, image, build, cmd, env, port, user, ready, replicas)`}},
		},
		{
			why:  "replicas share the host's network: a fixed port serves one",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    port: \"8080\"\n    replicas: 2\n", 1),
			want: []want{{8, 15, "targets[0].replicas", "replicas need {{port}} in cmd or env, not a fixed port"}},
		},
		{
			why:  "replicas are bounded as an http target's",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    replicas: 9\n", 1),
			want: []want{{7, 15, "targets[0].replicas", "9 replicas is out of range; want 1 to 8"}},
		},
		{
			why:  "a build's name and tag are an image's",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    build: {binary: ./shop, name: My_Shop, tag: -rc1}\n", 1),
			want: []want{
				{6, 35, "targets[0].build.name", `invalid image name "My_Shop": use lower-case letters and digits`},
				{6, 49, "targets[0].build.tag", `invalid image tag "-rc1"`},
			},
		},
		{
			why:  "the default image name must be one too",
			yaml: strings.Replace(strings.Replace(minimalContainer, "    image: shop:1.4\n", "    build: {binary: ./shop}\n", 1), "name: shop", "name: shop-", 1),
			want: []want{{6, 12, "targets[0].build", `the default image name "idemcheck-shop-" is not a valid image name: set name`}},
		},
		{
			why:  "an image reference is checked: names are lower case",
			yaml: strings.Replace(minimalContainer, "image: shop:1.4", "image: Shop:1.4", 1),
			want: []want{{6, 12, "targets[0].image", `invalid image reference "Shop:1.4": write NAME:TAG`}},
		},
		{
			why:  "a container told nothing about where to listen would never be ready",
			yaml: strings.Replace(minimalContainer, `"127.0.0.1:{{port}}"`, `"127.0.0.1:8080"`, 1),
			want: []want{{7, 10, "targets[0].cmd", "the container is not told where to listen: pass {{port}} in cmd or env"}},
		},
		{
			why:  "cmd takes the target's placeholders, not an intent's, and a fake's needs the fake",
			yaml: strings.Replace(minimalContainer, `"{{fakes.payments.url}}"]`, `"{{fakes.payments.url}}", "{{marker}}", "{{fakes.email.smtp}}"]`, 1),
			want: []want{
				{7, 81, "targets[0].cmd[4]", "unknown placeholder {{marker}} (allowed here: port, state_dir, replica, fakes.payments.url)"},
				{7, 95, "targets[0].cmd[5]", "{{fakes.email.smtp}} needs the email fake, which is not configured: add `fakes: {email: {}}`"},
			},
		},
		{
			why:  "a port is a TCP port number",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    port: 8080/udp\n    user: root user\n", 1),
			want: []want{
				{7, 11, "targets[0].port", `port "8080/udp" is not TCP`},
				{8, 11, "targets[0].user", `invalid user "root user": write uid:gid`},
			},
		},
		{
			why:  "ready is checked as a start command's",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    ready: {path: healthz, timeout: -1s}\n", 1),
			want: []want{
				{7, 19, "targets[0].ready.path", `must start with "/", got "healthz"`},
				{7, 37, "targets[0].ready.timeout", "must not be negative"},
			},
		},
		{
			why:  "the container shares the host's network and listens on loopback",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    url: http://10.0.0.7:{{port}}\n", 1),
			want: []want{{7, 10, "targets[0].url", `host "10.0.0.7" is not a loopback address: a container target uses the host's network and listens on loopback`}},
		},
		{
			why:  "a start command, allow_remote and a command are for other kinds, each with what to write instead",
			yaml: strings.Replace(minimalContainer, "    image: shop:1.4\n", "    image: shop:1.4\n    start: {command: [./shop]}\n    allow_remote: true\n    command: [./shop]\n", 1),
			want: []want{
				{7, 12, "targets[0].start", "start is for http, webhook, mcp and consumer targets; this is a container target (see kind); a container target is started from image or build, with cmd, env and ready"},
				{8, 19, "targets[0].allow_remote", "allow_remote is for http, webhook and mcp targets; this is a container target (see kind); a container target uses the host's network"},
				{9, 14, "targets[0].command", "command is for cli and mcp targets; this is a container target (see kind); a container's arguments go in cmd"},
			},
		},
		{
			why:  "container fields are refused on an http target",
			yaml: strings.Replace(minimal, "    operations:", "    image: shop:1.4\n    ready: {path: /healthz}\n    operations:", 1),
			want: []want{
				{6, 12, "targets[0].image", "image is for a container target; this is an http target (see kind)"},
				{7, 12, "targets[0].ready", "ready is for a container target; this is an http target (see kind); an http target's readiness goes under start"},
			},
		},
		{
			why:  "its operations are an http target's",
			yaml: strings.Replace(minimalContainer, "        method: POST\n", "        method: post\n        args: [x]\n", 1),
			want: []want{
				{11, 17, "targets[0].operations[0].method", `write it in upper case: "POST"`},
				{12, 15, "targets[0].operations[0].args", "args is for a cli target; this is a container target"},
			},
		},
	} {
		t.Run(tc.why, func(t *testing.T) {
			f, err := config.Parse("idemcheck.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Nil(t, f)
			var errs config.Errors
			require.ErrorAs(t, err, &errs)
			require.Len(t, errs, len(tc.want), "errors:\n%v", err)
			for i, w := range tc.want {
				e := errs[i]
				assert.Equal(t, w.path, e.Path, "error %d: %v", i, e)
				assert.Equal(t, []int{w.line, w.col}, []int{e.Line, e.Column}, "error %d: %v", i, e)
				assert.Contains(t, e.Msg, w.msg, "error %d", i)
			}
		})
	}
}
