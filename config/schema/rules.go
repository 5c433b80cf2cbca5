package schema

import (
	"fmt"
	"regexp"
)

// Ruler is implemented by a struct type that says more about its fields
// than their Go types do. Rules is called on the zero value; it must only
// declare, through r.
type Ruler interface {
	Rules(r *Rules)
}

// Rules collects what a struct type says about its fields, by the name
// the YAML file gives them.
type Rules struct {
	fields map[string]*Field
	order  []string
}

// Field returns the rules of the field that the YAML file calls name.
// The generator refuses a name that is no field of the struct.
func (r *Rules) Field(name string) *Field {
	if r.fields == nil {
		r.fields = map[string]*Field{}
	}
	f, ok := r.fields[name]
	if !ok {
		f = &Field{}
		r.fields[name] = f
		r.order = append(r.order, name)
	}
	return f
}

// Message turns the value a rule refused into what the error says.
type Message func(got any) string

// Sprintf returns a Message that formats the refused value with format,
// which has exactly one verb for it (%q for a string, %d for an integer,
// %v for either).
func Sprintf(format string) Message {
	return func(got any) string { return fmt.Sprintf(format, got) }
}

// Field holds the rules of one field, or of the items (Items) or keys
// (Keys) of a list or a map field.
type Field struct {
	required bool
	hint     string // what a required value is for, after "missing: "

	enum    []string
	enumMsg Message

	patterns []pattern

	lo, hi   *float64
	except   []float64
	rangeMsg Message

	constant any
	constMsg Message

	count    *[2]int
	countMsg Message

	items *Field
	keys  *Field
}

type pattern struct {
	re  string
	msg Message
}

// Required says that the file must write the field, with a value that
// is not empty (a string of at least one character, a list or a mapping
// with at least one entry). The error says "missing: " and hint, or
// "must not be empty: " and hint when the value is written but empty.
func (f *Field) Required(hint string) *Field {
	f.required, f.hint = true, hint
	return f
}

// Enum says that the value is one of values; msg says what an unknown
// one is (see Unknown).
func (f *Field) Enum(values []string, msg Message) *Field {
	f.enum, f.enumMsg = values, msg
	return f
}

// Pattern says that a string value matches the regular expression re
// (RE2 syntax, which JSON Schema's ECMA 262 reads alike for what a file
// needs); msg says what a value that does not is. A field may have
// several patterns, each with its message.
func (f *Field) Pattern(re string, msg Message) *Field {
	regexp.MustCompile(re) // a broken rule is a programming error, found by any test
	f.patterns = append(f.patterns, pattern{re, msg})
	return f
}

// Range says that a number is from lo to hi, both included, and is none
// of except; msg says what one that is not is.
func (f *Field) Range(lo, hi float64, msg Message, except ...float64) *Field {
	f.lo, f.hi, f.rangeMsg, f.except = &lo, &hi, msg, except
	return f
}

// Min says that a number is at least lo.
func (f *Field) Min(lo float64, msg Message) *Field {
	f.lo, f.rangeMsg = &lo, msg
	return f
}

// Count says that a list has lo to hi items; msg gets the list.
func (f *Field) Count(lo, hi int, msg Message) *Field {
	f.count, f.countMsg = &[2]int{lo, hi}, msg
	return f
}

// Const says that the value is exactly v.
func (f *Field) Const(v any, msg Message) *Field {
	f.constant, f.constMsg = v, msg
	return f
}

// Items returns the rules of a list's items, or of a map's values.
func (f *Field) Items() *Field {
	if f.items == nil {
		f.items = &Field{}
	}
	return f.items
}

// Keys returns the rules of a map's keys: patterns only.
func (f *Field) Keys() *Field {
	if f.keys == nil {
		f.keys = &Field{}
	}
	return f.keys
}
