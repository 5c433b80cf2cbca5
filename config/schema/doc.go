// Package schema generates the JSON Schema of idemcheck's configuration
// from the Go structs that the file decodes into, and checks a file with
// it, saying what is wrong in the words of the rules.
//
// A struct's fields are the schema's properties, by their yaml tags; a
// struct that implements Ruler adds what its Go types cannot say (a
// required field, the values a field may take, a pattern, a range), each
// rule with the message it gives when it is broken. Generator.Document
// builds the schema and keeps those messages by the location of each
// keyword; Schema.Validate maps every validation error back to its
// rule's message, or to a generic one ("expected an integer, got string
// \"abc\""), at the error's instance location. The caller, which knows
// where each value is written, turns the locations into file:line:col.
//
// The schema says what one field may be; what involves several fields,
// the machine or the placeholders of a string is checked by hand, after
// the file is decoded.
package schema
