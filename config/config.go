package config

import (
	"time"

	"github.com/idemcheck/idemcheck/config/schema"
	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/harness"
)

// File is an idemcheck configuration. Parse and Load return it validated
// and with every default applied, so consumers never look for zero values.
//
// Optional sections that are absent stay nil (Seed, a fake, a target's
// start, dry_run and the per-operation overrides); a section written with
// nothing under it, such as "payments:", is present with its defaults.
//
// Top-level keys that start with "x-" are ignored, as in Docker Compose
// files, so that they can hold YAML anchors for the rest of the file to
// use:
//
//	x-op: &json-post {mutating: true, method: POST, headers: {Content-Type: application/json}}
//	targets:
//	  - name: shop
//	    operations:
//	      - {<<: *json-post, name: charge, path: /charges, body: '...'}
type File struct {
	// Version is the version of the configuration format. Required; only
	// version 1 exists.
	Version int `yaml:"version"`
	// Seed, when set, feeds every random choice of a run, so that the run
	// can be replayed. When nil the harness picks one and reports it.
	Seed *uint64 `yaml:"seed,omitempty"`
	// Fakes configures the downstream fakes the targets call, by name: a
	// fake that is absent is not started. A target reaches one through
	// its placeholders, such as {{fakes.payments.url}}.
	Fakes Fakes `yaml:"fakes,omitempty"`
	// Targets are the systems under test. Required: at least one, and
	// names are unique. Each is decoded into its kind's struct (see
	// Registry.Kinds).
	Targets []Target `yaml:"targets"`
	// Checks selects which checks run; by default all of them.
	Checks Checks `yaml:"checks,omitempty"`
	// Faults are the faults to inject. Absent means the registry's default
	// faults (a consumer's own, and a declared dependency's too); an empty
	// list ("faults: []") means none, so only fault-free checks run, and a
	// score above 1, which needs retries after faults, cannot be shown.
	Faults []FaultSpec `yaml:"faults"`
	// Retry is how the harness retries an intent, like a careful client.
	Retry Retry `yaml:"retry"`
	// Bursts says how many same-key bursts concurrent.duplicates sends per
	// mutating operation, and how many copies each (see bursts.go); nil
	// means the defaults.
	Bursts *Bursts `yaml:"bursts,omitempty"`

	reg *Registry
	// faultsDefaulted: the file had no faults list, and Faults holds
	// the registry's defaults (the dependency faults too, when a target
	// declares a dependency).
	faultsDefaulted bool
	name            string            // file name given to Parse
	digest          string            // SHA-256 of its bytes, in hex
	base            string            // the directory relative paths are taken from
	env             map[string]string // the values of the {{env.NAME}} it uses
	pos             map[string]pos    // position of every decoded value, by path
}

// Target is a target's section of the file, decoded into its kind's
// struct, such as *targets/http.Section.
type Target = section.Target

// Fakes are the fakes a file configures, by name, each decoded into its
// descriptor's settings, such as *fakes/payments.Settings.
type Fakes map[string]fakes.Settings

// Rules implements schema.Ruler.
func (File) Rules(r *schema.Rules) {
	r.Field("version").Required("add `version: 1` at the top of the file").
		Const(supportedVersion, schema.Sprintf("unsupported version %v: this idemcheck reads version 1"))
	r.Field("targets").Required("list at least one target to test, with its name, kind, url and operations")
}

// The types a file is made of, shared by several kinds of target.
type (
	Duration    = section.Duration
	Locator     = section.Locator
	DryRun      = section.DryRun
	Input       = section.Input
	StringGen   = section.StringGen
	Start       = section.Start
	Ready       = section.Ready
	Secret      = section.Secret
	Operation   = section.Operation
	Observer    = section.Observer
	ObserveHTTP = section.ObserveHTTP
	ObserveSQL  = section.ObserveSQL
	// ObservePages, ObserveMCP, ObserveFile, ObserveRedis, ObserveCount
	// and ObserveCountHTTP are the other sources an observer may read.
	ObservePages     = section.ObservePages
	ObserveMCP       = section.ObserveMCP
	ObserveFile      = section.ObserveFile
	ObserveRedis     = section.ObserveRedis
	ObserveCount     = section.ObserveCount
	ObserveCountHTTP = section.ObserveCountHTTP
	Settle           = section.Settle
)

// Checks selects checks by id (see KnownChecks): Only runs just the listed
// ones, Skip runs all but the listed ones. At most one of the two is set.
type Checks struct {
	Only []string `yaml:"only,omitempty,flow"`
	Skip []string `yaml:"skip,omitempty,flow"`
}

// Rules implements schema.Ruler.
func (Checks) Rules(r *schema.Rules) {
	r.Field("only").Items().Enum(KnownChecks, schema.Unknown("check", KnownChecks))
	r.Field("skip").Items().Enum(KnownChecks, schema.Unknown("check", KnownChecks))
}

// FaultSpec names a fault to inject (see Registry.Faults) and its
// settings.
//
// In YAML it is either a plain name ("lost-response") or a mapping with a
// name and settings ({name: client-timeout, timeout: 300ms}). The settings
// are kept as YAML decoded them, for the fault registry to decode once it
// knows the fault's type. Parse has it decode them, and reports a setting
// the fault cannot use at "faults[i].KEY", beside the file's other
// problems; a later check can report one with File.Errorf.
type FaultSpec struct {
	Name     string
	Settings map[string]any
}

// MarshalYAML writes a fault the way it is read: a plain name when it has
// no settings, a mapping otherwise.
func (f FaultSpec) MarshalYAML() (any, error) {
	if len(f.Settings) == 0 {
		return f.Name, nil
	}
	m := make(map[string]any, len(f.Settings)+1)
	for k, v := range f.Settings {
		m[k] = v
	}
	m["name"] = f.Name
	return m, nil
}

// UnmarshalYAML reads a fault as a name or as a mapping.
func (f *FaultSpec) UnmarshalYAML(unmarshal func(any) error) error {
	if err := unmarshal(&f.Name); err == nil {
		return nil
	}
	var m map[string]any
	if err := unmarshal(&m); err != nil {
		return err
	}
	f.Name, _ = m["name"].(string)
	delete(m, "name")
	if len(m) > 0 {
		f.Settings = m
	}
	return nil
}

// Retry is the retry policy the harness follows for every intent.
type Retry struct {
	// MaxAttempts is 2 to 50. Zero or absent means DefaultMaxAttempts.
	MaxAttempts int `yaml:"max_attempts"`
	// Backoff is the pause between attempts. Zero or absent means
	// DefaultBackoff.
	Backoff Duration `yaml:"backoff"`
	// StuckWait bounds how long "in progress" answers (409, 425, 429) are
	// waited out before an intent is called stuck; after a dep-stall, the
	// stall's delay is waited out on top of it. Default DefaultStuckWait.
	StuckWait Duration `yaml:"stuck_wait,omitempty"`
	// Burst is how many same-key copies concurrent.duplicates releases
	// together. Default DefaultBurst; a queue consumer sends smaller
	// bursts of its own unless the file gives one.
	Burst int `yaml:"burst,omitempty"`
	// LateKeys is how many intents with fresh keys retry.late sends
	// between an intent and its late retry; LateDelay how long after
	// the intent the retry comes. Zero means the harness's defaults
	// (harness.DefaultLateKeys, harness.DefaultLateDelay); see late.go.
	LateKeys  int      `yaml:"late_keys,omitempty"`
	LateDelay Duration `yaml:"late_delay,omitempty"`
}

// Rules implements schema.Ruler.
func (Retry) Rules(r *schema.Rules) {
	r.Field("max_attempts").Range(0, maxMaxAttempts, schema.Sprintf("%v is out of range: use 2 to 50 (a retry needs at least a second attempt)"), 1)
	r.Field("burst").Range(0, MaxBurstSize, schema.Sprintf("must be from 2 to 200, got %v"), 1)
	lateKeys(r.Field("late_keys"))
}

// Defaults that Parse fills in for fields left out.
const (
	DefaultKeyHeader    = section.DefaultKeyHeader
	DefaultEffectJSON   = section.DefaultEffectJSON
	DefaultIdentityJSON = section.DefaultIdentityJSON
	DefaultTimeout      = section.DefaultTimeout
	DefaultReadyPath    = section.DefaultReadyPath
	DefaultReadyTimeout = section.DefaultReadyTimeout
	DefaultDryRunValue  = section.DefaultDryRunValue
	DefaultStringLength = section.DefaultStringLength
	DefaultMaxAttempts  = 5
	DefaultBackoff      = 20 * time.Millisecond
	DefaultStuckWait    = time.Second
	DefaultBurst        = 20
)

// Limits that Parse enforces.
const (
	supportedVersion = 1
	maxMaxAttempts   = 50
)

// MaxDuration bounds every duration of a configuration.
const MaxDuration = section.MaxDuration

// KnownChecks are the check ids that Checks.Only and Checks.Skip may name:
// the harness's checks. It is a variable so that a program embedding
// idemcheck can add its own checks before calling Parse.
var KnownChecks = checkIDs()

func checkIDs() []string {
	var ids []string
	for _, c := range harness.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// Placeholders returns the names of the placeholders in s, in order, as
// written between "{{" and "}}" with surrounding spaces trimmed:
// "/charges/{{ input.id }}?m={{marker}}" gives ["input.id", "marker"]. An
// unclosed "{{" ends the scan.
func Placeholders(s string) []string { return section.Placeholders(s) }
