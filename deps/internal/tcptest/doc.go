// Package tcptest serves raw TCP on loopback for the dependency proxies'
// tests and benchmarks: a database that never answers, one that speaks
// another protocol or misbehaves on purpose, or a plain relay.
package tcptest
