// Package openapi writes a starter idemcheck configuration from an OpenAPI
// 3.0 or 3.1 description (YAML or JSON, parsed and validated with
// kin-openapi): every POST, PUT, PATCH and DELETE operation becomes a
// mutating operation and every GET and HEAD a safe one; the key header is
// the operation's declared Idempotency-Key-like header parameter; path,
// query and body values become generated inputs from their schemas; the
// intent's {{marker}} goes into a free-text field of the body (a note, a
// description) where there is one, and a TODO is left where there is none.
// A GET operation on a created resource's collection that can search is
// proposed as an effect observer that reads back what each intent made.
//
// What only the user knows is written as a TODO that idemcheck run reports
// with its line until it is filled in.
package openapi
