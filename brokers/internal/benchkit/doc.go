// Package benchkit is the brokers' publish-to-ack benchmark: publishers
// publish b.N events and the clock stops once the broker has seen b.N
// acks. Each broker's benchmark starts the broker and a consumer that acks
// everything, then calls Run.
package benchkit
