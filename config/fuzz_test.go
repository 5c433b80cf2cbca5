package config_test

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/idemcheck/idemcheck/config"
)

// FuzzParse checks that Parse never panics, that it returns either a File
// or sorted, located errors, and that a File it accepts survives being
// written back as YAML and parsed again.
func FuzzParse(f *testing.F) {
	valid, err := os.ReadFile("testdata/valid.yaml")
	require.NoError(f, err)
	for _, seed := range []string{
		string(valid),
		minimal,
		"",
		"version: 1\n",
		"- a\n- b\n",
		"version: 1\ntargets: &t [*t]\n",
		"a: &a {<<: *a}\n",
		"version: 1\ntargets:\n  - {name: x, kind: http, url: 'http://[::1]:{{port}}', start: {command: [x]}, operations: [{name: o, mutating: true, method: GET, path: '/{{marker}}{{input.a}}', inputs: {a: {choice: [x, y]}}}]}\n",
		minimalCLI,
		minimalWebhook,
		minimalContainer,
		"version: 1\ntargets:\n  - {name: w, kind: webhook, url: 'http://[::1]:1', id_header: x, signature: {scheme: none}, events: [{name: e, safe: true, path: /, body: '{{marker}}{{created}}'}]}\n",
		"version: 1\ntargets:\n  - {name: c, kind: container, build: {binary: b}, port: '1/tcp', operations: [{name: o, mutating: true, method: GET, path: '/{{marker}}'}]}\n",
		"version: 1\ntargets:\n  - {name: c, kind: cli, command: [t, '{{port}}'], dry_run_flag: '', retry_exit_codes: [1], operations: [{name: o, mutating: false, args: ['{{marker}}']}]}\n",
		"version: 1\nfaults: [{name: lost-response, x: !!binary aGk=}, 503-before]\n",
		"version: 1\nseed: -1\nretry: {backoff: 1.5}\n",
		"version: 1\n---\nversion: 2\n",
		"{{",
		"x: \"\\xff\"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse("fuzz.yaml", data)
		if err != nil {
			require.Nil(t, cfg)
			var errs config.Errors
			require.True(t, errors.As(err, &errs), "Parse returns Errors, got %T", err)
			require.NotEmpty(t, errs)
			require.True(t, slices.IsSortedFunc(errs, func(a, b *config.Error) int { return a.Line - b.Line }), "errors are sorted by line:\n%v", err)
			for _, e := range errs {
				require.Equal(t, "fuzz.yaml", e.File)
				require.NotEmpty(t, e.Msg)
			}
			return
		}
		require.NotNil(t, cfg)
		out, err := yaml.Marshal(cfg)
		require.NoError(t, err)
		again, err := config.Parse("again.yaml", out)
		require.NoError(t, err, "re-parsing what a valid File marshals to:\n%s", out)
		out2, err := yaml.Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2))
	})
}
