package rabbitmq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/idemcheck/idemcheck/brokers/internal/kit"
	"github.com/idemcheck/idemcheck/targets/process"
)

// ErrNotInstalled is returned (wrapped) when no RabbitMQ server (or no
// Erlang epmd) is found.
var ErrNotInstalled = errors.New("rabbitmq-server is not installed")

// BinEnv names the environment variable that, when set, is the
// rabbitmq-server script to run.
const BinEnv = "IDEMCHECK_RABBITMQ_SERVER"

// debianServer is where Debian keeps the server script itself; the one on
// PATH (/usr/sbin) is a wrapper that switches to the rabbitmq user and
// its system-wide node.
const debianServer = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// Find returns the rabbitmq-server script and the epmd binary.
func Find() (server, epmd string, err error) {
	server = os.Getenv(BinEnv)
	if server == "" {
		server = debianServer
	}
	if _, err := os.Stat(server); err != nil {
		return "", "", fmt.Errorf("%w: no %s (Debian: apt-get install rabbitmq-server; or set $%s)", ErrNotInstalled, server, BinEnv)
	}
	if epmd, err = exec.LookPath("epmd"); err != nil {
		return "", "", fmt.Errorf("%w: no epmd on PATH (Erlang's port mapper; Debian: apt-get install erlang-base)", ErrNotInstalled)
	}
	return server, epmd, nil
}

// node is a private RabbitMQ node: its own epmd on a private port, its own
// node name, cookie, configuration, database and logs, all under dir.
type node struct {
	epmd, server *process.Process
	amqpPort     int
}

// startNode starts a private node with the given consumer timeout and
// returns once its AMQP listener accepts connections.
func startNode(ctx context.Context, serverBin, epmdBin, dir string, consumerTimeout time.Duration) (*node, error) {
	ports := make([]int, 3)
	for i := range ports {
		p, err := process.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	epmdPort, amqpPort, distPort := ports[0], ports[1], ports[2]
	if err := writeConfig(dir, amqpPort, consumerTimeout); err != nil {
		return nil, err
	}
	n := &node{amqpPort: amqpPort}
	var err error
	n.epmd, err = process.Start(ctx, process.Spec{
		Name:    "epmd",
		Command: []string{epmdBin, "-port", strconv.Itoa(epmdPort), "-address", "127.0.0.1"},
		Dir:     dir,
		Ready:   process.Ready{Addr: "127.0.0.1:" + strconv.Itoa(epmdPort), Timeout: 10 * time.Second},
	})
	if err != nil {
		return nil, fmt.Errorf("rabbitmq: start a private epmd: %w", err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	env := []string{
		"HOME=" + filepath.Join(dir, "home"),
		"ERL_EPMD_PORT=" + strconv.Itoa(epmdPort),
		"RABBITMQ_NODENAME=idemcheck-" + hex.EncodeToString(suffix) + "@localhost",
		"RABBITMQ_USE_LONGNAME=false",
		"RABBITMQ_BASE=" + dir,
		"RABBITMQ_CONF_ENV_FILE=" + filepath.Join(dir, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE=" + filepath.Join(dir, "rabbitmq.conf"),
		"RABBITMQ_ADVANCED_CONFIG_FILE=" + filepath.Join(dir, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE=" + filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_MNESIA_BASE=" + filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE=" + filepath.Join(dir, "log"),
		"RABBITMQ_LOGS=-",
		"RABBITMQ_PID_FILE=" + filepath.Join(dir, "pid"),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT=" + strconv.Itoa(amqpPort),
		"RABBITMQ_DIST_PORT=" + strconv.Itoa(distPort),
		// Erlang distribution listens on loopback only.
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
	}
	n.server, err = process.Start(ctx, process.Spec{
		Name:    "rabbitmq-server",
		Command: []string{serverBin},
		Env:     env,
		Dir:     dir,
		Ready:   process.Ready{Addr: "127.0.0.1:" + strconv.Itoa(amqpPort), Timeout: kit.Timeout(ctx, 60*time.Second)},
	})
	if err != nil {
		n.stop()
		return nil, fmt.Errorf("rabbitmq: start a private node: %w", err)
	}
	return n, nil
}

// writeConfig writes the node's files: an Erlang cookie, an empty
// environment file, no plugins, the listener on loopback, the consumer
// timeout, and a channel tick short enough for the timeout to be checked
// often (by default it is checked once a minute).
func writeConfig(dir string, amqpPort int, consumerTimeout time.Duration) error {
	home := filepath.Join(dir, "home")
	for _, d := range []string{home, filepath.Join(dir, "mnesia"), filepath.Join(dir, "log")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("rabbitmq: %w", err)
		}
	}
	cookie := make([]byte, 16)
	_, _ = rand.Read(cookie)
	tick := max(consumerTimeout/10, 50*time.Millisecond)
	files := map[string]string{
		filepath.Join(home, ".erlang.cookie"):   hex.EncodeToString(cookie),
		filepath.Join(dir, "rabbitmq-env.conf"): "",
		filepath.Join(dir, "enabled_plugins"):   "[].\n",
		filepath.Join(dir, "rabbitmq.conf"): fmt.Sprintf(`listeners.tcp.1 = 127.0.0.1:%d
loopback_users = none
consumer_timeout = %d
disk_free_limit.absolute = 1MB
log.console = true
log.console.level = warning
`, amqpPort, consumerTimeout.Milliseconds()),
		filepath.Join(dir, "advanced.config"): fmt.Sprintf("[{rabbit, [{channel_tick_interval, %d}]}].\n", tick.Milliseconds()),
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o400); err != nil {
			return fmt.Errorf("rabbitmq: write %s: %w", filepath.Base(path), err)
		}
	}
	return nil
}

// stop stops the node, then its epmd.
func (n *node) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var errs []error
	if n.server != nil {
		errs = append(errs, n.server.Stop(ctx))
	}
	if n.epmd != nil {
		errs = append(errs, n.epmd.Stop(ctx))
	}
	return errors.Join(errs...)
}
