package process_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/targets/process"
)

// expander fills in {{port}} and refuses every other placeholder, as
// harness.Expand does with the values of one start.
func expander(s string) (string, error) {
	s = strings.ReplaceAll(s, "{{port}}", "4242")
	if strings.Contains(s, "{{") {
		return "", errors.New("unknown placeholder in " + s)
	}
	return s, nil
}

func TestLaunchSpec(t *testing.T) {
	l := process.Launch{
		Command:   []string{"./server", "--addr", "127.0.0.1:{{port}}"},
		Env:       map[string]string{"B": "2", "A": "{{port}}"},
		Dir:       "/srv",
		ReadyPath: "/healthz",
	}
	spec, err := l.Spec("shop", "http://127.0.0.1:4242/", "run-1", expander)
	require.NoError(t, err)
	assert.Equal(t, []string{"./server", "--addr", "127.0.0.1:4242"}, spec.Command)
	assert.Equal(t, []string{"A=4242", "B=2", "IDEMCHECK_RUN_ID=run-1"}, spec.Env, "sorted by name, the run id last")
	assert.Equal(t, "/srv", spec.Dir)
	assert.Equal(t, "http://127.0.0.1:4242/healthz", spec.Ready.URL)

	l.ReadyPath = ""
	spec, err = l.Spec("shop", "http://127.0.0.1:4242", "", expander)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:4242/", spec.Ready.URL, "the default readiness path is /")
	assert.NotContains(t, strings.Join(spec.Env, " "), process.RunIDVar, "no run id, no variable")
}

func TestLaunchSpecNamesWhatFailed(t *testing.T) {
	for _, tc := range []struct {
		why    string
		launch process.Launch
		want   string
	}{
		{"a command argument", process.Launch{Command: []string{"x", "{{nope}}"}}, "start command: unknown placeholder"},
		{"the working directory", process.Launch{Command: []string{"x"}, Dir: "{{nope}}"}, "start dir: unknown placeholder"},
		{"an environment value, by name; the first in name order", process.Launch{Command: []string{"x"}, Env: map[string]string{"Z": "{{a}}", "K": "{{b}}"}}, "start env K: unknown placeholder"},
	} {
		t.Run(tc.why, func(t *testing.T) {
			_, err := tc.launch.Spec("t", "http://127.0.0.1:1", "", expander)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestExpandArgsAndMap(t *testing.T) {
	args, err := process.ExpandArgs("cmd", nil, expander)
	require.NoError(t, err)
	assert.Nil(t, args, "no args stay nil, so that an image's own CMD is kept")
	m, err := process.ExpandMap("env", nil, expander)
	require.NoError(t, err)
	assert.NotNil(t, m, "a nil map gives an empty one, ready for more entries")
	assert.Equal(t, []string{"A=1", "B=2"}, process.EnvList(map[string]string{"B": "2", "A": "1"}, ""))
}

func TestMentions(t *testing.T) {
	assert.True(t, process.Mentions("port", "x", "127.0.0.1:{{port}}"))
	assert.True(t, process.Mentions("port", "{{ port }}"), "spaces inside the braces are allowed")
	assert.False(t, process.Mentions("port", "/report", "{{portal}}", "{{port"), "only the whole placeholder counts")
}
