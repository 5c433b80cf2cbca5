package reports

import (
	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/record"
)

// Matrix is a target's checks against the faults tried: which check held
// under which fault. It is derived from the record, so it needs none of
// the checks' internals: each cell re-runs one check on the intents made
// under one fault, per operation, to learn whether the check judged
// anything there, and counts the run's own findings to say whether it held.
type Matrix struct {
	// Columns are "no fault" (Fault "") and then every fault tried.
	Columns []MatrixColumn
	Rows    []MatrixRow
}

// MatrixColumn is one fault (or none) and how many intents met it.
type MatrixColumn struct {
	Fault string
	// Intents counts the intents whose first faulted attempt met Fault
	// (for "no fault": the intents without any fault).
	Intents int
	// Unsupported is true when the adapter could not inject the fault;
	// Why says why, when the run recorded it.
	Unsupported bool
	Why         string
}

// MatrixRow is one check across the columns.
type MatrixRow struct {
	Check  string
	Status record.Status
	Note   string
	Cells  []MatrixCell
}

// MatrixCell is one check under one fault.
type MatrixCell struct {
	// Status is pass, fail or skip; "" when the check judged nothing under
	// this fault.
	Status record.Status
	// Findings counts the check's findings under this fault.
	Findings int
	// Passed counts the operations the check judged under this fault
	// without a finding.
	Passed int
}

// BuildMatrix makes t's matrix; nil when t has no record.
func BuildMatrix(t record.TargetResult) *Matrix {
	rec := t.Record
	if rec == nil {
		return nil
	}
	unsupported := map[string]bool{}
	for _, f := range rec.Unsupported {
		unsupported[f] = true
	}
	m := &Matrix{Columns: []MatrixColumn{{Fault: ""}}}
	col := map[string]int{"": 0}
	addColumn := func(f string) int {
		if i, ok := col[f]; ok {
			return i
		}
		col[f] = len(m.Columns)
		m.Columns = append(m.Columns, MatrixColumn{Fault: f, Unsupported: unsupported[f], Why: rec.UnsupportedWhy[f]})
		return col[f]
	}
	for _, f := range rec.Faults {
		addColumn(f)
	}
	// The intents of each column and operation.
	byCell := map[[2]string][]record.Intent{}
	for _, in := range rec.Intents {
		if len(in.Attempts) == 0 {
			continue
		}
		f := intentFault(&in)
		m.Columns[addColumn(f)].Intents++
		byCell[[2]string{f, in.Operation}] = append(byCell[[2]string{f, in.Operation}], in)
	}
	// Related intents (the original of a mismatch or a twin) go with them.
	for k, ins := range byCell {
		have := map[int]bool{}
		for _, in := range ins {
			have[in.ID] = true
		}
		for _, in := range ins {
			if in.Related != 0 && !have[in.Related] {
				if r := rec.Intent(in.Related); r != nil {
					have[r.ID] = true
					byCell[k] = append(byCell[k], *r)
				}
			}
		}
	}
	// The run's findings, by check, column and operation.
	found := map[[3]string]int{}
	for _, f := range t.Findings {
		ff := findingFault(f)
		addColumn(ff) // a generated trial may have met a fault the probes did not
		found[[3]string{f.Check, ff, f.Operation}]++
	}
	status := map[string]record.CheckResult{}
	for _, c := range t.Checks {
		status[c.ID] = c
	}
	for _, c := range checks.Checks() {
		cr, ok := status[c.ID]
		if !ok {
			continue
		}
		row := MatrixRow{Check: c.ID, Status: cr.Status, Note: cr.Note, Cells: make([]MatrixCell, len(m.Columns))}
		for i, column := range m.Columns {
			cell := &row.Cells[i]
			if cr.Status == record.StatusSkip {
				cell.Status = record.StatusSkip
				continue
			}
			for _, op := range rec.Target.Operations {
				n := found[[3]string{c.ID, column.Fault, op.Name}]
				cell.Findings += n
				ins := byCell[[2]string{column.Fault, op.Name}]
				if n == 0 && len(ins) > 0 && judges(c.Eval, rec, ins) {
					cell.Passed++
				}
			}
			// Findings on no particular operation.
			cell.Findings += found[[3]string{c.ID, column.Fault, ""}]
			switch {
			case cell.Findings > 0:
				cell.Status = record.StatusFail
			case cell.Passed > 0:
				cell.Status = record.StatusPass
			}
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// judges reports whether eval finds anything to judge among ins (with the
// whole ledger, since checks read attempts' ledger windows).
func judges(eval func(*record.Record) ([]record.Finding, bool), rec *record.Record, ins []record.Intent) (applicable bool) {
	defer func() {
		if recover() != nil {
			applicable = false // a check that cannot read a partial record judged nothing here
		}
	}()
	sub := *rec
	sub.Intents = ins
	_, applicable = eval(&sub)
	return applicable
}

// intentFault is the fault of the intent's first faulted attempt, "" if none.
func intentFault(in *record.Intent) string {
	for _, a := range in.Attempts {
		if a.Fault != "" {
			return a.Fault
		}
	}
	return ""
}

// findingFault is the fault a finding was made under: its own, else that
// of the intents it shows.
func findingFault(f record.Finding) string {
	if f.Fault != "" {
		return f.Fault
	}
	for i := range f.Evidence.Intents {
		if x := intentFault(&f.Evidence.Intents[i]); x != "" {
			return x
		}
	}
	return ""
}
