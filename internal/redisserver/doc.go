// Package redisserver starts a real Redis for the tests and the demo: the
// distribution's redis-server (found on PATH, or named by
// $IDEMCHECK_REDIS_SERVER), a free port on 127.0.0.1, its files and log in
// a temporary directory, no persistence. The server runs in its own
// process group, dies with the process that started it, and Stop removes
// every trace of it.
package redisserver
