package config

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written in YAML as a string such as "250ms"
// or "10s" (see time.ParseDuration). A bare number is refused: "10" could
// mean seconds or milliseconds, and guessing wrong makes a run slow or
// flaky.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d as time.Duration does, e.g. "1.5s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d in the form it is read.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

func (d *Duration) decodeNode(dec *decoder, n *yaml.Node, path string) {
	if isNull(n) {
		*d = 0
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != strTag {
		dec.fail(n, path, "expected a duration such as \"250ms\" or \"10s\", got %s", describe(n))
		return
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		dec.fail(n, path, "invalid duration %q: write a number and a unit (ns, us, ms, s, m, h), such as \"250ms\" or \"10s\"", n.Value)
		return
	}
	if v > MaxDuration { // a negative one is refused by the field's own check
		dec.fail(n, path, "duration %q is out of range: expected at most %s", n.Value, MaxDuration)
		return
	}
	*d = Duration(v)
}

// MaxDuration bounds every duration of a configuration: longer ones
// (876000h) are typing mistakes, and would make a run wait for ever.
const MaxDuration = 24 * time.Hour
