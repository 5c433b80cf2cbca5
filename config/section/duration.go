package section

import (
	"fmt"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// Duration is a time.Duration written in YAML as a string such as "250ms"
// or "10s" (see time.ParseDuration). A bare number is refused: "10" could
// mean seconds or milliseconds, and guessing wrong makes a run slow or
// flaky. A duration is never negative, and at most MaxDuration.
type Duration time.Duration

// MaxDuration bounds every duration of a configuration: longer ones
// (876000h) are typing mistakes, and would make a run wait for ever.
const MaxDuration = 24 * time.Hour

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d as time.Duration does, e.g. "1.5s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d in the form it is read.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a duration the schema has already accepted.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// durationFormat names the schema format that checks a Duration's value.
const durationFormat = "go-duration"

// durationPattern is what editors check a duration against; the format
// says more.
const durationPattern = `^-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`

// JSONSchema implements schema.Schemer.
func (Duration) JSONSchema(g *schema.Generator, loc string) map[string]any {
	g.Message(loc+"/type", func(got any) string {
		return `expected a duration such as "250ms" or "10s", got ` + schema.Describe(got)
	})
	g.Message(loc+"/pattern", func(got any) string {
		return fmt.Sprintf(`invalid duration %q: write a number and a unit (ns, us, ms, s, m, h), such as "250ms" or "10s"`, got)
	})
	return map[string]any{
		"type":        "string",
		"pattern":     durationPattern,
		"format":      durationFormat,
		"description": `A duration: a number and a unit (ns, us, ms, s, m, h), such as "250ms" or "10s"; at most 24h.`,
	}
}

var durationRE = lazyregexp.New(durationPattern)

// Formats are the schema formats the types of this package use, for
// schema.Compile.
func Formats() []*jsonschema.Format {
	return []*jsonschema.Format{{Name: durationFormat, Validate: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		d, err := time.ParseDuration(s)
		switch {
		case err != nil && !durationRE.MatchString(s):
			return nil // the pattern's message says it
		case err != nil:
			return fmt.Errorf("invalid duration %q: %v", s, err)
		case d < 0:
			return fmt.Errorf("must not be negative, got %s", d)
		case d > MaxDuration:
			return fmt.Errorf("duration %q is out of range: expected at most %s", s, MaxDuration)
		}
		return nil
	}}}
}
