package container

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDockerRunSaysTheEnvironment: the command offered to reproduce a
// container that exited before it was ready runs it as idemcheck did,
// its environment included, quoted for a shell.
func TestDockerRunSaysTheEnvironment(t *testing.T) {
	s := runSpec{image: "idemcheck-invoice:latest", user: "1000:1000",
		env: []string{"DATABASE_URL=postgres://u@127.0.0.1:5432/db?sslmode=disable", "NOTE=it's here"},
		cmd: []string{"--listen", "127.0.0.1:41234", "--mode", "correct"}}
	assert.Equal(t, `docker run --rm --network host --user 1000:1000 -e 'DATABASE_URL=postgres://u@127.0.0.1:5432/db?sslmode=disable' -e 'NOTE=it'\''s here' idemcheck-invoice:latest --listen 127.0.0.1:41234 --mode correct`, s.dockerRun())
}
