// Package brokerset links every broker of package brokers into a program
// that runs consumer targets: import it for its side effect,
//
//	import _ "github.com/idemcheck/idemcheck/targets/consumer/brokerset"
//
// idemcheck's command line does. A program that imports only
// targets/consumer (through config) links no broker and so none of their
// dependencies; its consumer targets then fail to start, saying so.
package brokerset
