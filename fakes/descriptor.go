package fakes

// Descriptor describes one fake to the configuration file and to
// `idemcheck fakes`: its name, the addresses it listens on, and the
// settings its section of the file decodes into. Everything the file's
// checks and the command say about a fake derives from it: the
// placeholders {{fakes.NAME.<endpoint>}} a target may use, the fixed
// addresses (listen:) to check, the command's flags and what it prints.
// Package config lists the descriptors it knows; a fake's package
// declares its own (see fakes/CREATING_FAKES.md).
type Descriptor struct {
	// Name is the fake's key under fakes: in the file and in its
	// placeholders, such as "payments"; it is also what Fake.Name says.
	Name string
	// Summary says in a few words what the fake stands for, for the
	// schema and for `idemcheck fakes`.
	Summary string
	// Endpoints are the addresses the fake listens on; the first is the
	// one Fake.URL gives.
	Endpoints []Endpoint
	// New returns the fake's settings with nothing set, for its section
	// of the file to be decoded into: a pointer to a struct.
	New func() Settings
}

// Endpoint is one address a fake listens on.
type Endpoint struct {
	// Placeholder is the last part of the placeholder that names the
	// address, {{fakes.NAME.<Placeholder>}}: "url", "smtp".
	Placeholder string
	// Field is the settings' field that fixes the address, by its YAML
	// name: "listen", "smtp".
	Field string
	// Flag is the `idemcheck fakes` flag that fixes the address; What
	// says what listens there, for the flag's description ("the email
	// fake's SMTP server").
	Flag, What string
	// Env is the environment variable `idemcheck fakes` prints the
	// address under, when the file names none for it: "PAYMENTS_URL".
	Env string
	// Serves says what the endpoint answers, for `idemcheck fakes`:
	// "POST /v1/charges, GET /v1/charges".
	Serves string
	// Value returns the address of a running fake, as the placeholder
	// gives it.
	Value func(Fake) string
}

// Settings are a fake's section of the configuration file, decoded.
type Settings interface {
	// Addresses returns the fields that fix the endpoints' listen
	// addresses, in the order of the Descriptor's Endpoints; a field
	// holds "" for a free port.
	Addresses() []*string
	// Defaults fills in what the section left out.
	Defaults()
	// Starter returns what starts the fake as the settings say; control,
	// when set, is the loopback address its control API (ledger, fault
	// rules) listens on, apart from the addresses a target is given
	// (idemcheck fakes serves one; a run arms in-process and needs none).
	Starter(control string) Starter
}

// URL is the Value of a fake's first endpoint: Fake.URL.
func URL(f Fake) string { return f.URL() }

// Honour reads a fake's honour_keys setting, nil meaning true: whether it
// de-duplicates requests that carry the same idempotency key.
func Honour(honour *bool) bool { return honour == nil || *honour }
