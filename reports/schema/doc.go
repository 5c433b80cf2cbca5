// Package schema holds the JSON Schema of idemcheck's JSON report
// (report.v1.json, draft 2020-12, every field documented) and a validator
// for the part of JSON Schema that file uses, so that a test — idemcheck's
// own, or a consumer's — can check a report against it without a JSON
// Schema library.
//
// The validator knows type, enum, minimum, required, properties,
// additionalProperties (false or a schema), items and local $ref into
// $defs; title, description, format, $schema and $id are annotations. A
// schema using any other keyword is refused rather than half-checked.
package schema
