package section

import "github.com/idemcheck/idemcheck/harness"

// Kind describes one kind of target to the configuration: the value of a
// target's kind field, the struct its section decodes into, and what to
// say about the fields of other kinds. Package config lists the kinds it
// knows; a kind's package declares its Kind next to its adapter.
type Kind struct {
	// Name is what a target's kind field says, such as "http".
	Name string
	// Doc says in a few words what a target of this kind is, for the
	// schema's description of the kind field.
	Doc string
	// New returns a target of this kind with nothing set, for its
	// section of the file to be decoded into: a pointer to the kind's
	// struct, which embeds Common inline.
	New func() Target
	// Hints say what to write instead of a field that belongs to
	// another kind, where the two are easily confused, by the field's
	// name: the error about that field ends with it.
	Hints map[string]string
}

// Target is a target's section of the configuration file, decoded into
// its kind's struct. A kind's struct that lacks one of these methods
// does not compile as the result of its Kind's New.
type Target interface {
	// Base returns the fields every target has; the embedded Common
	// provides it.
	Base() *Common
	// Check reports what the schema cannot say about the target: rules
	// across its fields, placeholders, hosts. The schema has checked
	// each field on its own already.
	Check(c *Checker)
	// Defaults fills in what the file left out, once nothing is wrong.
	Defaults()
	// Spec builds what the harness runs for the target, from its
	// adapter; b resolves paths and environment values, and has the
	// fakes; it reports what it finds wrong with b.Errorf. Package config then adds what Common says (key format,
	// fresh trials, trial workers, observers).
	Spec(b *Builder) harness.Spec
}

// Reached is implemented by a target that is reached at a URL, which an
// http read-back (observe: [{http: …}]) is taken under. TargetURL returns the
// URL as written, "" when the target has none (an mcp server over stdio).
type Reached interface {
	TargetURL() string
}

// Commander is implemented by a target whose processes idemcheck starts
// (or whose environment it sets): Commands lists them, so that a run can
// check their programs and directories before anything starts, and
// `idemcheck fakes` can tell which variables carry a fake's address.
type Commander interface {
	Commands() []Command
}

// Command is one command a target is started with, as written.
type Command struct {
	// Field is where it is written under the target: "start", or "" for
	// the target's own command, env and dir.
	Field   string
	Command []string
	Env     map[string]string
	Dir     string
}

// StartCommands is the Commands of a target started by s, when it is not
// nil.
func StartCommands(s *Start) []Command {
	if s == nil {
		return nil
	}
	return []Command{{Field: "start", Command: s.Command, Env: s.Env, Dir: s.Dir}}
}
