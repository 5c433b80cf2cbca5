package config

import (
	"fmt"
	"net"
)

// FixedAddress is one fake's fixed listen address and where the file
// sets it.
type FixedAddress struct {
	// Fake names it: "payments", "email", "email smtp", "webhooks": the
	// fake's name, and the endpoint's placeholder after its first.
	Fake string
	// Addr is host:port.
	Addr string
	// Path is the field, e.g. "fakes.payments.listen".
	Path string
}

// FixedAddresses returns the fakes' fixed addresses, in the order of the
// registry's fakes and of their endpoints.
func (f *File) FixedAddresses() []FixedAddress {
	var out []FixedAddress
	for _, d := range f.registry().Fakes {
		s, ok := f.Fakes[d.Name]
		if !ok {
			continue
		}
		for i, addr := range s.Addresses() {
			if *addr == "" || i >= len(d.Endpoints) {
				continue
			}
			e := d.Endpoints[i]
			name := d.Name
			if i > 0 {
				name += " " + e.Placeholder
			}
			out = append(out, FixedAddress{Fake: name, Addr: *addr, Path: "fakes." + d.Name + "." + e.Field})
		}
	}
	return out
}

// CheckFree reports, with file, line and field, every fixed address that
// cannot be bound now (taken by another run, by `idemcheck fakes`, by any
// program), so that a run never shares a fake by accident.
func (f *File) CheckFree() error {
	var errs Errors
	for _, a := range f.FixedAddresses() {
		ln, err := net.Listen("tcp", a.Addr)
		if err != nil {
			errs = append(errs, f.Errorf(a.Path, "%s cannot be bound: %v; another run or `idemcheck fakes` may be using it: stop it, or choose another port", a.Addr, err))
			continue
		}
		ln.Close()
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// String shows a fixed address for messages.
func (a FixedAddress) String() string { return fmt.Sprintf("%s at %s", a.Fake, a.Addr) }

// registry is the registry f was parsed with; Builtin's for a File made
// in Go.
func (f *File) registry() *Registry {
	if f.reg == nil {
		f.reg = Builtin()
	}
	return f.reg
}
