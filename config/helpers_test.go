package config_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/config"
	clitarget "github.com/idemcheck/idemcheck/targets/cli"
	"github.com/idemcheck/idemcheck/targets/container"
	"github.com/idemcheck/idemcheck/targets/http/httpconfig"
	"github.com/idemcheck/idemcheck/targets/mcp/mcpconfig"
	"github.com/idemcheck/idemcheck/targets/webhook/webhookconfig"
)

// sectionAt returns target i of f as its kind's struct, failing the test
// when it is of another kind.
func sectionAt[T config.Target](t testing.TB, f *config.File, i int) T {
	t.Helper()
	require.Greater(t, len(f.Targets), i)
	s, ok := f.Targets[i].(T)
	require.True(t, ok, "targets[%d] is a %T", i, f.Targets[i])
	return s
}

func httpAt(t testing.TB, f *config.File, i int) *httpconfig.Section {
	t.Helper()
	return sectionAt[*httpconfig.Section](t, f, i)
}

func cliAt(t testing.TB, f *config.File, i int) *clitarget.Section {
	t.Helper()
	return sectionAt[*clitarget.Section](t, f, i)
}

func webhookAt(t testing.TB, f *config.File, i int) *webhookconfig.Section {
	t.Helper()
	return sectionAt[*webhookconfig.Section](t, f, i)
}

func containerAt(t testing.TB, f *config.File, i int) *container.Section {
	t.Helper()
	return sectionAt[*container.Section](t, f, i)
}

func mcpAt(t testing.TB, f *config.File, i int) *mcpconfig.Section {
	t.Helper()
	return sectionAt[*mcpconfig.Section](t, f, i)
}
