package config

import (
	"bytes"
	_ "embed" // the schema file
)

// schemaJSON is the configuration file's JSON Schema. It is generated
// from the structs of this package (go test ./config -run TestSchema
// -update), and a test fails when it no longer matches them.
//
//go:embed idemcheck.schema.json
var schemaJSON []byte

// SchemaURL is where the schema is published, for the first line of a
// configuration file that editors with a YAML language server read:
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/idemcheck/idemcheck/main/config/idemcheck.schema.json
const SchemaURL = "https://raw.githubusercontent.com/idemcheck/idemcheck/main/config/idemcheck.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the configuration
// file: every field, with its type and its documentation, and the values
// a field may take where they are few. Parse checks more than the schema
// can say (placeholders, which fields go with which kind, loopback
// hosts); the schema is for editors, to complete and check as one types.
func Schema() []byte { return bytes.Clone(schemaJSON) }
