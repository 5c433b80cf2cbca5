package config

import (
	"errors"
	"fmt"

	"github.com/idemcheck/idemcheck/config/section"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
)

// Specs turns a validated configuration into what the harness runs: one
// harness.Spec per target, built by its kind's Spec with the fakes the
// file configures, and the options (faults, checks, retries) that the
// file sets. A Go program that calls it gets exactly what idemcheck run
// gets from the same file.
func (f *File) Specs() ([]harness.Spec, []harness.Option, error) {
	var starters []harness.FakeStarter
	for _, d := range f.registry().Fakes {
		if s, ok := f.Fakes[d.Name]; ok {
			starters = append(starters, s.Starter("")) // a run arms in-process
		}
	}
	var specs []harness.Spec
	var errs Errors
	for i, t := range f.Targets {
		b := section.NewBuilder(f.base, f.env, starters, fmt.Sprintf("targets[%d]", i))
		spec := t.Spec(b)
		t.Base().Finish(b, &spec)
		for _, p := range b.Problems() {
			errs = append(errs, f.Errorf(p.Path, "%s", p.Msg))
		}
		specs = append(specs, spec)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	fs := makeFaults(f.registry().Faults, f.Faults, f.faultsDefaulted, nil, func(path, msg string) {
		errs = append(errs, f.Errorf(path, "%s", msg))
	})
	if len(errs) > 0 {
		return nil, nil, errs
	}
	faultsOpt := harness.WithFaults(fs...)
	if f.faultsDefaulted {
		// Each target is given its kind's defaults (a consumer's broker
		// faults) and its own dependencies' faults by the harness.
		defaults := []faults.Fault{}
		for _, name := range f.registry().DefaultFaults {
			fault, err := f.registry().Faults.New(name, nil)
			if err != nil {
				return nil, nil, Errors{f.Errorf("faults", "default fault: %v", err)}
			}
			defaults = append(defaults, fault)
		}
		faultsOpt = harness.WithDefaultFaults(defaults...)
	}
	opts := []harness.Option{
		faultsOpt,
		harness.WithMaxAttempts(f.Retry.MaxAttempts),
		func(o *harness.Options) { o.Backoff = f.Retry.Backoff.Std() },
		harness.WithStuckWait(f.Retry.StuckWait.Std()),
		lateOption(f.Retry),
	}
	if _, given := f.pos["retry.burst"]; given || f.pos == nil {
		// Given by the file (or a File made in code): it wins over a
		// kind's own default (a consumer's), as over the harness's.
		opts = append(opts, harness.WithBurst(f.Retry.Burst))
	}
	opts = append(opts, f.Bursts.options()...)
	if ids := selectedChecks(f.Checks); ids != nil {
		opts = append(opts, harness.WithChecks(ids...))
	}
	if len(f.FixedAddresses()) > 0 {
		// Fakes at fixed addresses exist once: one target at a time.
		opts = append(opts, harness.WithParallel(1))
	}
	return specs, opts, nil
}

// makeFaults makes the faults list names with reg, their settings
// decoded, in order. Every entry that cannot be made, and every fault
// listed a second time (unless dups), is told to report, with the path
// to blame: the entry's, "faults[2]", or its setting's, "faults[2].delay";
// and left out. Entries that skip (when not nil) is true of are left
// out without a word.
func makeFaults(reg *faults.Registry, list []FaultSpec, dups bool, skip func(i int) bool, report func(path, msg string)) []faults.Fault {
	fs := []faults.Fault{}
	listed := map[string]int{}
	for i, spec := range list {
		if skip != nil && skip(i) {
			continue
		}
		at := section.PathIndex("faults", i)
		if j, ok := listed[spec.Name]; ok && !dups {
			// Faults are told apart by name in a run, its findings and
			// baselines: a second entry would be dropped without a word.
			report(at, fmt.Sprintf("%s is listed already (faults[%d]): each fault runs once for each operation, so only one of them would run; keep the one with the settings you want", spec.Name, j))
			continue
		}
		listed[spec.Name] = i
		fault, err := reg.New(spec.Name, spec.Settings)
		var se *faults.SettingError
		switch {
		case errors.As(err, &se) && se.Setting != "":
			report(section.PathKey(at, se.Setting), se.Err.Error())
		case err != nil:
			report(at, err.Error())
		default:
			fs = append(fs, fault)
		}
	}
	return fs
}

// checkFaults reports, at their paths in sf, every entry of the file's
// faults list that cannot be made (a setting its fault cannot use) or
// names a fault listed already; at once, beside the rest of the file's
// problems. An entry the schema refused (an unknown name, no name) was
// reported already, and is passed over.
func checkFaults(sf *section.File, reg *faults.Registry, list []FaultSpec) {
	makeFaults(reg, list, false,
		func(i int) bool {
			c := section.NewChecker(sf, section.PathIndex("faults", i))
			return list[i].Name == "" || c.Refused() || c.Field("name").Refused()
		},
		func(path, msg string) { section.NewChecker(sf, path).Errorf("%s", msg) })
}

func selectedChecks(c Checks) []string {
	if len(c.Only) > 0 {
		return c.Only
	}
	if len(c.Skip) == 0 {
		return nil
	}
	skip := map[string]bool{}
	for _, id := range c.Skip {
		skip[id] = true
	}
	var ids []string
	for _, ch := range harness.Checks() {
		if !skip[ch.ID] {
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

// applyDefaults fills in what a valid file left out, so that consumers of
// a File never need to know the defaults.
func (f *File) applyDefaults() {
	for _, s := range f.Fakes {
		s.Defaults()
	}
	if f.Faults == nil { // an explicit "faults: []" stays empty
		f.faultsDefaulted = true
		for _, name := range f.registry().DefaultFaults {
			f.Faults = append(f.Faults, FaultSpec{Name: name})
		}
		if f.declaresDependencies() {
			for _, name := range harness.DependencyFaultNames {
				f.Faults = append(f.Faults, FaultSpec{Name: name})
			}
		}
	}
	if f.Retry.MaxAttempts == 0 {
		f.Retry.MaxAttempts = DefaultMaxAttempts
	}
	if f.Retry.Backoff == 0 {
		f.Retry.Backoff = Duration(DefaultBackoff)
	}
	if f.Retry.StuckWait == 0 {
		f.Retry.StuckWait = Duration(DefaultStuckWait)
	}
	if f.Retry.Burst == 0 {
		f.Retry.Burst = DefaultBurst
	}
	for _, t := range f.Targets {
		t.Defaults()
	}
}

// declaresDependencies says whether a target of the file declares one:
// the dependency faults are then among the defaults.
func (f *File) declaresDependencies() bool {
	for _, t := range f.Targets {
		if len(t.Base().Dependencies) > 0 {
			return true
		}
	}
	return false
}
