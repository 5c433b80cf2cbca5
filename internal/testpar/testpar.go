package testpar

import (
	"flag"
	"strconv"
)

// AtLeast raises the number of parallel tests run at once (go test's
// -parallel) to n, unless the command line gave -parallel or the default
// is already as high. Call it from TestMain, before m.Run: it parses the
// command line's flags first, as m.Run would.
func AtLeast(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.parallel")
	if f == nil {
		return
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v == f })
	if given {
		return
	}
	if cur, err := strconv.Atoi(f.Value.String()); err == nil && cur >= n {
		return
	}
	_ = f.Value.Set(strconv.Itoa(n))
}
