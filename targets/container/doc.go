// Package container is idemcheck's adapter for targets that run in a Docker
// container: the target server runs in a real container, reached through the
// same HTTP adapter (targets/http, with its fault proxy) as a local process,
// and crash faults kill and restart the container itself.
//
// The story of one target: [Build] makes an image FROM scratch that holds
// nothing but a static Linux binary (idempotent: an image already built from
// the same binary is kept; the engine never pulls anything, so it works with
// no registry). [Spec] returns a harness.Spec whose Start creates a container
// from that image and waits until it answers HTTP. Its command and
// environment may use {{port}} (a free loopback port), {{fakes.NAME.url}}
// and {{state_dir}}, which is /state inside the container: the run's fresh
// state directory (harness.Env.StateDir) is bind-mounted there, so what the
// target writes survives a crash and the harness cleans it up.
//
// Networking: the container shares the host's network namespace (network
// mode "host"). Its 127.0.0.1 is the host's, so it reaches the fakes, which
// listen on the host's loopback only, and the harness reaches it on
// 127.0.0.1:{{port}}; nothing listens off loopback and no port is published.
// This needs a Linux Docker engine on the same machine as the harness: with
// Docker Desktop or a remote DOCKER_HOST, "host" is another machine's
// network and the target is never ready (the error says so).
//
// Faults: everything the HTTP adapter injects (proxy, client, downstream,
// bursts), plus the crash faults (harness.Crasher): Kill is docker kill with
// SIGKILL, returning once the container has stopped; Restart starts the very
// same container again (same command, environment, filesystem and state
// directory) and returns once it is ready.
//
// Nothing is left behind: every container is labelled idemcheck.run=<run id>
// ([RunLabel]) and idemcheck.target=<name>; a container whose start fails or is
// cancelled is removed before Start returns, and Close force-removes it. If
// the harness itself is killed, the leftovers can be found and removed with
//
//	docker rm -f $(docker ps -aq --filter label=idemcheck.run)
//
// Docker is reached with the standard DOCKER_HOST (default: the local
// socket); when it is missing or not answering, Start and Build fail with an
// *UnreachableError ("Docker is not reachable at …"), which the CLI reports
// as exit 3. The adapter talks to the engine's API through
// github.com/ory/dockertest/v3 and its go-dockerclient; it needs no docker
// command.
package container
