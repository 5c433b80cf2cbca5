// Package kit is what every broker shares: the observation log, the armed
// faults, the publisher that carries out Reorder, the lifetime that bounds
// held acks, the placeholders, and the test helper that starts a broker.
// A broker embeds a Core and adds its server, its proxy and its protocol.
package kit
