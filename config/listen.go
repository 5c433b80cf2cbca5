package config

import (
	"fmt"
	"net"
	"strconv"
)

// FixedAddress is one fake's fixed listen address and where the file
// sets it.
type FixedAddress struct {
	// Fake names it: "payments", "email", "email smtp", "webhooks".
	Fake string
	// Addr is host:port.
	Addr string
	// Path is the field, e.g. "fakes.payments.listen".
	Path string
}

// FixedAddresses returns the fakes' fixed addresses, in a stable order.
func (f *File) FixedAddresses() []FixedAddress {
	var out []FixedAddress
	add := func(fake, addr, path string) {
		if addr != "" {
			out = append(out, FixedAddress{Fake: fake, Addr: addr, Path: path})
		}
	}
	if p := f.Fakes.Payments; p != nil {
		add("payments", p.Listen, "fakes.payments.listen")
	}
	if e := f.Fakes.Email; e != nil {
		add("email", e.Listen, "fakes.email.listen")
		add("email smtp", e.SMTP, "fakes.email.smtp")
	}
	if w := f.Fakes.Webhooks; w != nil {
		add("webhooks", w.Listen, "fakes.webhooks.listen")
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

// listen checks a fake's fixed address: loopback host, a port, and not
// the address of another fake.
func (v *validator) listen(path, addr string, seen map[string]string) {
	if addr == "" {
		return
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		v.errorf(path, "invalid address %q: write host:port, such as 127.0.0.1:4242", addr)
		return
	}
	if !isLoopback(host) {
		v.errorf(path, "host %q is not a loopback address: a fake only listens on this machine (127.0.0.1, ::1 or localhost)", host)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		v.errorf(path, "invalid port %q: write a number from 1 to 65535 (leave listen out for a free port)", port)
	}
	if other, dup := seen[addr]; dup {
		v.errorf(path, "%s is also %s: each fake needs its own address", addr, other)
	}
	seen[addr] = path
}

func (v *validator) fakeAddresses(f *File) {
	seen := map[string]string{}
	for _, a := range f.FixedAddresses() {
		v.listen(a.Path, a.Addr, seen)
	}
}

// String shows a fixed address for messages.
func (a FixedAddress) String() string { return fmt.Sprintf("%s at %s", a.Fake, a.Addr) }
