package main

import (
	"errors"

	"github.com/idemcheck/idemcheck/reports"
)

// lockOut takes the report directory of a command for its whole run
// (reports.LockDir), so that two runs sharing --out cannot overwrite each
// other's reports and saved failing trials: the second is refused (exit
// 2) with the first's pid.
func lockOut(dir string) (unlock func(), err error) {
	unlock, err = reports.LockDir(dir)
	var le *reports.LockedError
	switch {
	case errors.As(err, &le):
		return nil, &exitError{code: exitUsage, err: err}
	case err != nil:
		return nil, harnessErr(err, "choose an --out directory you can write to")
	}
	return unlock, nil
}

// lockOut takes --out, if given, for the command's whole run (lockOut);
// without --out there is nothing to hold.
func (o *output) lockOut() (unlock func(), err error) {
	if o.out == "" {
		return func() {}, nil
	}
	return lockOut(o.out)
}
