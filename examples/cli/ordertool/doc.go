// Command ordertool is idemcheck's reference command-line tool: orders,
// payments and email with a choice of idempotency stores, built the way
// such stores are commonly written, flaws included (see package ordertool).
//
//	go build -o ordertool ./examples/cli/ordertool
//	STATE_DIR=/tmp/ot PAYMENTS_URL=http://127.0.0.1:4242 \
//	  ./ordertool --store correct create-order --customer cus_1 --amount 500 --memo hi --idempotency-key k1
package main
