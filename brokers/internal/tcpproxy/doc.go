// Package tcpproxy is the loopback TCP proxy that the brokers put between a
// consumer and the broker, so that a protocol-aware pipe can observe the
// traffic and drop or hold single messages (an ack) on the way.
package tcpproxy
