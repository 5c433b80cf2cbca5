package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/fakes"
)

// controlAddr is where idemcheck fakes serves each fake's control API: a
// free loopback port apart from the address a service is given, so that
// the service cannot disarm the faults a person arms.
const controlAddr = "127.0.0.1:0"

// controlNote says where the control API is.
const controlNote = "each fake's ledger and fault rules are at its control URL only (GET /_idemcheck/ledger, POST and DELETE /_idemcheck/rules), never at the address a service is given"

// cmdFakes runs every fake the registry knows on loopback, sharing one
// ledger, until interrupted: to point a tool at them by hand. Each
// endpoint of each fake has a flag that fixes its address.
func cmdFakes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	reg := config.Builtin()
	fs := newFlagSet("fakes")
	type addr struct {
		d     fakes.Descriptor
		flags []*string
	}
	var addrs []addr
	for _, d := range reg.Fakes {
		a := addr{d: d}
		for _, e := range d.Endpoints {
			a.flags = append(a.flags, fs.String(e.Flag, "127.0.0.1:0", "listen address of "+e.What+" (loopback)"))
		}
		addrs = append(addrs, a)
	}
	var cfgPath string
	fs.StringVar(&cfgPath, "config", "", "run exactly the fakes configuration `FILE` declares, at their listen addresses")
	fs.StringVar(&cfgPath, "c", "", "same as --config")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err, stdout)
	}
	if fs.NArg() > 0 {
		return usageErr("fakes: unexpected argument %q", fs.Arg(0))
	}
	if cfgPath != "" {
		return fakesFromConfig(ctx, cfgPath, stdout)
	}
	var set []configured
	for _, a := range addrs {
		s := a.d.New()
		for i, p := range s.Addresses() {
			*p = *a.flags[i]
		}
		s.Defaults()
		set = append(set, configured{a.d, s})
	}
	running, stop, err := startFakes(ctx, set)
	if err != nil {
		return usageErr("fakes: %v", err)
	}
	defer stop()
	for _, r := range running {
		line := fmt.Sprintf("%-9s %s  (%s)", r.d.Name, r.f.URL(), r.d.Endpoints[0].Serves)
		for _, e := range r.d.Endpoints[1:] {
			line += "  " + e.Placeholder + " " + e.Value(r.f)
		}
		fmt.Fprintln(stdout, line+control(r, 0))
	}
	fmt.Fprintln(stdout, controlNote)
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	return nil
}

// configured is a fake and its settings.
type configured struct {
	d fakes.Descriptor
	s fakes.Settings
}

// started is a running fake.
type started struct {
	d fakes.Descriptor
	f fakes.Fake
}

// startFakes starts the fakes with one ledger; stop closes them.
func startFakes(ctx context.Context, set []configured) (_ []started, stop func(), _ error) {
	ledger := fakes.NewLedger()
	var out []started
	stop = func() {
		for _, r := range out {
			_ = r.f.Close()
		}
	}
	for _, c := range set {
		f, err := c.s.Starter(controlAddr)(ctx, ledger)
		if err != nil {
			stop()
			return nil, nil, fmt.Errorf("fakes.%s: %w", c.d.Name, err)
		}
		out = append(out, started{c.d, f})
	}
	return out, stop, nil
}

// control says where the control API of a running fake is, on the line
// of its first endpoint.
func control(r started, i int) string {
	c, ok := r.f.(interface{ ControlURL() string })
	if !ok || i > 0 || c.ControlURL() == "" {
		return ""
	}
	return "  control " + c.ControlURL()
}

// endpointLabel names endpoint i of d: the fake's name, then the
// endpoint's placeholder after the first ("email smtp").
func endpointLabel(d fakes.Descriptor, i int) string {
	if i == 0 {
		return d.Name
	}
	return d.Name + " " + d.Endpoints[i].Placeholder
}

// fakeNames lists the fakes a file may configure.
func fakeNames(reg *config.Registry) string {
	var names []string
	for _, d := range reg.Fakes {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}
