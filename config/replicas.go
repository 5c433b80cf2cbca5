package config

import "strings"

// MaxReplicas bounds replicas: enough to show that a lock or a cache held
// in each process does not hold across them, few enough for one machine.
const MaxReplicas = 8

// replicas checks an http target's replicas: a count within bounds, for a
// target idemcheck starts, on a port of each instance's own. {{replica}}
// (0, 1, …) is then available to the start command, env and dir, e.g. to
// number the instances.
func (v *validator) replicas(p string, t *Target) {
	if t.Replicas == 0 || t.Replicas == 1 {
		return
	}
	path := pathField(p, "replicas")
	switch {
	case t.Replicas < 0 || t.Replicas > MaxReplicas:
		v.errorf(path, "%d replicas is out of range; want 1 to %d", t.Replicas, MaxReplicas)
	case t.Start == nil:
		v.errorf(path, "replicas need a start command: idemcheck starts each instance itself; add start.command")
	case t.Remote:
		v.errorf(path, "replicas cannot be combined with allow_remote: the instances are processes idemcheck starts on this machine")
	case !strings.Contains(t.URL, "{{"+phPort+"}}"):
		v.errorf(path, "replicas need {{port}} in url (and in the start command): each instance listens on a port of its own")
	}
}
