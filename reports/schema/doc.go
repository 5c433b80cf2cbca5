// Package schema holds the JSON Schema of idemcheck's JSON report
// (report.v1.json, draft 2020-12, every field documented) and a validator
// for it, so that a test — idemcheck's own, or a consumer's — can check a
// report against the schema in one call.
//
// Validation is github.com/santhosh-tekuri/jsonschema/v6's, over the whole
// of JSON Schema; Validate turns its verdict into Errors, one line per
// violation with the place in the document where it is. A schema is
// compiled on its own: a reference outside it is refused, never loaded.
package schema
