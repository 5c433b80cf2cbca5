package config

import (
	"slices"
	"strings"
)

// Placeholders returns the names of the placeholders in s, in order, as
// written between "{{" and "}}" with surrounding spaces trimmed:
// "/charges/{{ input.id }}?m={{marker}}" gives ["input.id", "marker"]. An
// unclosed "{{" ends the scan.
func Placeholders(s string) []string {
	names, _ := scanPlaceholders(s)
	return names
}

// scanPlaceholders is Placeholders that also says what is malformed.
func scanPlaceholders(s string) (names, problems []string) {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return names, problems
		}
		rest := s[i+2:]
		j := strings.Index(rest, "}}")
		if j < 0 {
			return names, append(problems, `unclosed placeholder: "{{" without a matching "}}"`)
		}
		if name := strings.TrimSpace(rest[:j]); name != "" {
			names = append(names, name)
		} else {
			problems = append(problems, "empty placeholder {{}}: write a name between the braces")
		}
		s = rest[j+2:]
	}
}

// expand replaces every placeholder in s by value(name).
func expand(s string, value func(name string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(value(strings.TrimSpace(s[i+2 : i+2+j])))
		s = s[i+2+j+2:]
	}
	b.WriteString(s)
	return b.String()
}

// Placeholders a target's start command, environment, directory and URL
// may use: the harness knows these before the target runs.
const (
	phPort        = "port"
	phStateDir    = "state_dir"
	phReplica     = "replica"
	phKey         = "key"
	phMarker      = "marker"
	phInputPrefix = "input."
	phCreated     = "created"
	phFakePrefix  = "fakes."
	phFakeSuffix  = ".url"
	phSMTPSuffix  = ".smtp"
)

// smtpFakes are the fakes that also run an SMTP server, whose host:port
// is {{fakes.NAME.smtp}}.
var smtpFakes = []string{"email"}

// targetPlaceholders lists the placeholders allowed at target level.
func targetPlaceholders() string {
	names := []string{phPort, phStateDir}
	for _, f := range fakeNames {
		names = append(names, phFakePrefix+f+phFakeSuffix)
	}
	for _, f := range smtpFakes {
		names = append(names, phFakePrefix+f+phSMTPSuffix)
	}
	return strings.Join(names, ", ")
}

// targetTemplate checks the placeholders of a target-level string and says
// whether it uses {{port}}. fakes are the fakes the file configures.
func (v *validator) targetTemplate(path, s string, fakes map[string]bool) (usesPort bool) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		v.errorf(path, "%s", p)
	}
	for _, name := range names {
		fake, isFake := strings.CutPrefix(name, phFakePrefix)
		fakeURL, isURL := strings.CutSuffix(fake, phFakeSuffix)
		fakeSMTP, isSMTP := strings.CutSuffix(fake, phSMTPSuffix)
		switch {
		case isFake && isURL:
			fake = fakeURL
		case isFake && isSMTP:
			fake = fakeSMTP
		}
		switch {
		case name == phPort:
			usesPort = true
		case name == phStateDir, name == phReplica:
		case v.envNotAllowed(path, name):
		case isFake && ((isURL && slices.Contains(fakeNames, fake)) || (isSMTP && slices.Contains(smtpFakes, fake))):
			if !fakes[fake] {
				v.errorf(path, "{{%s}} needs the %s fake, which is not configured: add `fakes: {%s: {}}` at the top level of the file", name, fake, fake)
			}
		default:
			v.errorf(path, "unknown placeholder {{%s}} (allowed here: %s)", name, targetPlaceholders())
		}
	}
	return usesPort
}

// opTemplate checks the placeholders of an operation's path, header value
// or body and says whether it uses {{marker}}.
func (v *validator) opTemplate(path, s string, inputs map[string]Input) (usesMarker bool) {
	return v.intentTemplate(path, s, inputs).marker
}

// uses says which of an intent's own placeholders a template uses.
type uses struct{ key, marker bool }

func (u uses) or(o uses) uses { return uses{u.key || o.key, u.marker || o.marker} }

// intentTemplate checks the placeholders of a string the harness fills in
// per intent (an operation's path, header value, body or args; an
// event's): {{key}}, {{marker}}, the declared {{input.NAME}}, and extra,
// the further names allowed where it is used (a webhook body's
// {{created}}).
func (v *validator) intentTemplate(path, s string, inputs map[string]Input, extra ...string) (used uses) {
	names, problems := scanPlaceholders(s)
	for _, p := range problems {
		v.errorf(path, "%s", p)
	}
	declared := sortedKeys(inputs)
	for _, name := range names {
		switch {
		case name == phKey:
			used.key = true
		case name == phMarker:
			used.marker = true
		case slices.Contains(extra, name):
		case v.envNotAllowed(path, name):
		case strings.HasPrefix(name, phInputPrefix):
			input := strings.TrimPrefix(name, phInputPrefix)
			if _, ok := inputs[input]; ok {
				continue
			}
			if len(declared) == 0 {
				v.errorf(path, "{{%s}} uses input %q, but this %s declares no inputs: declare it under inputs, e.g. inputs: {%s: {int: [1, 100]}}", name, input, owner(path), input)
			} else {
				v.errorf(path, "{{%s}} uses input %q, which this %s does not declare (%sdeclared inputs: %s)", name, input, owner(path), didYouMean(input, declared), strings.Join(declared, ", "))
			}
		default:
			allowed := append([]string{phKey, phMarker}, extra...)
			if len(declared) == 0 {
				allowed = append(allowed, phInputPrefix+"NAME for a declared input")
			}
			for _, in := range declared {
				allowed = append(allowed, phInputPrefix+in)
			}
			v.errorf(path, "unknown placeholder {{%s}} (allowed here: %s)", name, strings.Join(allowed, ", "))
		}
	}
	return used
}

// owner names what the template at path belongs to, for messages.
func owner(path string) string {
	if strings.Contains(path, ".events[") {
		return "event"
	}
	return "operation"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
