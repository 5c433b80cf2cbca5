package reports_test

import (
	"fmt"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
)

func ExampleReplayCommand() {
	res := &record.Result{Seed: 42, Meta: record.Meta{Command: "run", Config: "idemcheck.yaml"}}
	f := record.Finding{Check: checks.CheckRetryAfterFault, Severity: record.Critical}
	fmt.Println(reports.RunCommand(res))
	fmt.Println(reports.ReplayCommand(res, f))
	// Output:
	// idemcheck run -c idemcheck.yaml --seed 42
	// idemcheck run -c idemcheck.yaml --seed 42 --only retry.after-fault
}

func ExampleFormats() {
	for _, f := range reports.Formats() {
		fmt.Printf("--format %s writes %s\n", f.Name, f.File)
	}
	// Output:
	// --format text writes report.txt
	// --format json writes report.json
	// --format junit writes report.xml
	// --format md writes report.md
	// --format html writes report.html
}
