package record

// Operation is one named thing a target can do.
type Operation struct {
	Name string `json:"name"`
	// Mutating operations have side effects; the others are safe (read-only).
	Mutating bool `json:"mutating"`
	// DryRun is true when the target offers a dry-run mode for it.
	DryRun bool `json:"dry_run,omitempty"`
	// Inputs are the generated values the operation's request uses.
	Inputs map[string]Input `json:"inputs,omitempty"`
	// Annotations are what the operation claims about itself (an MCP
	// tool's annotations); nil when it claims nothing. Mutating is what
	// the harness tests it as: when the configuration overrides the
	// annotations, the two disagree (see Annotations.Disagree).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Deletes is true when the operation removes things (its name says
	// so), for the destructiveHint rule of mcp.annotations.
	Deletes bool `json:"deletes,omitempty"`
	// NoKey is true for a mutating operation that takes no idempotency
	// key (an MCP tool with no key argument), even on a target whose
	// other operations do: what calling it again does is judged against
	// its annotations, in findings worded without keys.
	NoKey bool `json:"no_key,omitempty"`
}

// Keyless reports whether the operation called name takes no
// idempotency key: the target takes none (neither beside the payload nor
// as the event's own id), or the operation says so.
func (t TargetInfo) Keyless(name string) bool {
	if c := t.Caps(); !c.Keys && !c.EventKeys {
		return true
	}
	op, ok := t.Operation(name)
	return ok && op.NoKey
}

// Annotations are the behaviour an operation claims, as an MCP tool's
// annotations state it (readOnlyHint, idempotentHint, destructiveHint,
// openWorldHint). They are hints a caller may rely on; the mcp.* checks
// verify them.
type Annotations struct {
	// ReadOnly: calling it changes nothing.
	ReadOnly bool `json:"read_only"`
	// Idempotent: calling it again with the same arguments has no
	// further effect.
	Idempotent bool `json:"idempotent"`
	// Destructive: it may destroy or overwrite things; nil when unsaid
	// (MCP's default is then true).
	Destructive *bool `json:"destructive,omitempty"`
	// OpenWorld: it reaches outside its own domain; nil when unsaid.
	OpenWorld *bool `json:"open_world,omitempty"`
}

// Disagree reports whether op is tested as mutating although its
// annotations say read-only, or the other way round: the configuration
// overrode them.
func (op Operation) Disagree() bool {
	return op.Annotations != nil && op.Mutating == op.Annotations.ReadOnly
}

// Input says how to generate one input value.
type Input struct {
	// Kind is "int", "choice" or "string".
	Kind    string   `json:"kind"`
	Min     int      `json:"min,omitempty"`
	Max     int      `json:"max,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Prefix  string   `json:"prefix,omitempty"`
	Length  int      `json:"length,omitempty"`
}

// TargetInfo describes a target.
type TargetInfo struct {
	Name string `json:"name"`
	// Kind is the adapter: http, cli, mcp, webhook, container.
	Kind       string      `json:"kind"`
	Operations []Operation `json:"operations"`
	// Capabilities says what the target can do; nil means
	// DefaultCapabilities. The checks whose convention the target lacks
	// are reported as not applicable and do not hold the score down.
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Request names what an operation's request is made of, for messages
	// ("arguments" for a command); empty means "method, path, body".
	Request string `json:"request,omitempty"`
}

// Capabilities says what a target can do. The harness asks it, never the
// target's kind, which checks apply and which probes can be made.
//
// A target declares the conventions it follows (Keys, EffectField,
// DryRun). The abilities that an interface shows (Burst, Restart,
// Signatures, Reorder) are filled in by the harness from the interfaces
// the target implements (Burster, Crasher, Signer, Reorderer), whatever the
// target declares.
type Capabilities struct {
	// Keys: the caller chooses the idempotency key beside the payload (a
	// header, a flag), so it may leave it out or reuse it with another
	// payload (key.required, key.mismatch).
	Keys bool `json:"keys,omitempty"`
	// EventKeys: every call carries its own key, which a retry or a
	// redelivery repeats (a webhook's event id, a message's id): the
	// target has a key to honour, although the caller can neither leave
	// it out nor send it with another payload (Keys is false, and
	// key.required and key.mismatch do not apply).
	EventKeys bool `json:"event_keys,omitempty"`
	// SessionProcess: every protocol session is a process of its own (an
	// MCP server over stdio): what a session keeps in memory, its process
	// keeps, and a key kept there is lost to the next session.
	SessionProcess bool `json:"session_process,omitempty"`
	// EffectField: successful replies say what they did (effect.field).
	EffectField bool `json:"effect_field,omitempty"`
	// DryRun: the target's kind has a dry-run convention (dryrun);
	// Operation.DryRun says which operations offer one.
	DryRun bool `json:"dry_run,omitempty"`
	// Burst: copies of one call can be sent at once (Burster).
	Burst bool `json:"burst,omitempty"`
	// Restart: the harness can kill and restart the target (Crasher, and a
	// crash fault it supports).
	Restart bool `json:"restart,omitempty"`
	// Signatures: calls are signed and can be sent forged (Signer).
	Signatures bool `json:"signatures,omitempty"`
	// Reorder: calls can be delivered newest first (Reorderer).
	Reorder bool `json:"reorder,omitempty"`
	// Redelivery: the target is a queue consumer that idemcheck feeds
	// through a broker, which can be made to deliver an event again
	// (faults of class redelivery; consumer.redelivery).
	Redelivery bool `json:"redelivery,omitempty"`
	// ObservedOnly: the target's effects are counted by observers alone:
	// no fake takes its calls, and no fault of a downstream call acts.
	ObservedOnly bool `json:"observed_only,omitempty"`
	// Serial: the target's effects are attributed by delta, so its
	// intents run one at a time: no probe sends distinct intents at once
	// (a burst, copies of one intent, still runs).
	Serial bool `json:"serial,omitempty"`
	// Annotations: operations state how they behave (an MCP server's
	// tool annotations), and the mcp.* checks hold them to it.
	Annotations bool `json:"annotations,omitempty"`
	// Callers: how many callers' credentials the target was given; with
	// two or more, key.scope sends one key from two callers.
	Callers int `json:"callers,omitempty"`
	// Profile names a published convention the target declares it follows
	// and asks to be held to: ProfileIETFDraft, or "" for none.
	Profile string `json:"profile,omitempty"`
}

// DefaultCapabilities are the conventions of an idempotent API that takes
// its key beside the payload: keys, an effect field and dry runs.
func DefaultCapabilities() Capabilities {
	return Capabilities{Keys: true, EffectField: true, DryRun: true}
}

// Caps returns the target's capabilities, DefaultCapabilities when it
// declares none.
func (ti TargetInfo) Caps() Capabilities {
	if ti.Capabilities == nil {
		return DefaultCapabilities()
	}
	return *ti.Capabilities
}

// Operation returns the operation called name.
func (ti TargetInfo) Operation(name string) (Operation, bool) {
	for _, op := range ti.Operations {
		if op.Name == name {
			return op, true
		}
	}
	return Operation{}, false
}
