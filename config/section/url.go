package section

import (
	"errors"
	"net/url"
	"strings"
)

// URLPolicy says where a target's URL may point.
type URLPolicy struct {
	// Remote allows a host that is not loopback (allow_remote).
	Remote bool
	// Started says that idemcheck starts the target, so that {{port}} is
	// known.
	Started bool
	// StartPort says that the start command or its environment uses
	// {{port}}: the target then listens where the URL must say {{port}}.
	StartPort bool
	// LoopbackOnly says why only loopback will do, whatever Remote says
	// (a container on the host's network); "" when Remote decides.
	LoopbackOnly string
}

// CheckURL checks a target's base URL, written at c: it must parse, and
// point at this machine unless the policy allows remote hosts, because
// idemcheck sends duplicate and faulty requests on purpose. It may use
// {{env.NAME}} and the placeholders of a target.
func CheckURL(c *Checker, raw string, p URLPolicy) {
	if raw == "" {
		return
	}
	usesPort := c.TargetTemplate(c.EnvRefs(raw))
	if usesPort && !p.Started {
		c.Errorf("uses {{port}}, but the target has no start command: the harness picks the port only for a target it starts; add start.command, or write the port the running target listens on")
	}
	if !usesPort && p.StartPort {
		c.Errorf("%q does not use {{port}}, but the start command (or its environment) is given {{port}}, a free port the harness picks at every start, where the target will listen: write {{port}} in the URL in place of the port, such as \"http://127.0.0.1:{{port}}\"", raw)
	}
	// Parse with the placeholders filled in with stand-ins of the right shape.
	concrete := Expand(raw, func(name string) string {
		switch {
		case name == PhPort:
			return "1"
		case strings.HasPrefix(name, PhFakes):
			return "http://127.0.0.1:1"
		case strings.HasPrefix(name, phEnvPrefix):
			return c.file.env[strings.TrimPrefix(name, phEnvPrefix)]
		default:
			return "x"
		}
	})
	u, err := url.Parse(concrete)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		c.Errorf("invalid URL %q: %v", raw, err)
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		c.Errorf("URL %q must start with http:// or https://", raw)
		return
	}
	host := u.Hostname()
	switch {
	case host == "":
		c.Errorf("URL %q has no host; write one such as 127.0.0.1", raw)
	case IsLoopback(host):
	case p.LoopbackOnly != "":
		c.Errorf("host %q is not a loopback address: %s", host, p.LoopbackOnly)
	case !p.Remote:
		c.Errorf("host %q is not a loopback address: idemcheck sends duplicate and faulty requests on purpose, so it only targets 127.0.0.1, ::1 or localhost unless the target sets allow_remote: true", host)
	}
}
