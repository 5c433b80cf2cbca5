package reports_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idemcheck/idemcheck/record"
	"github.com/idemcheck/idemcheck/reports"
	"github.com/idemcheck/idemcheck/reports/schema"
)

func TestReportOfARealRunValidates(t *testing.T) {
	assert.NoError(t, schema.ValidateReport([]byte(render(t, "json", fixture(t), reports.Options{}))))
}

// TestEveryFieldIsInTheSchema fills every field of a result — those a
// real run rarely sets included (a crash, a withheld reply, a flaky trial
// finding) — and validates the report: a field added to the report or to
// the harness types it carries, but not documented in the schema, fails
// here.
func TestEveryFieldIsInTheSchema(t *testing.T) {
	var res record.Result
	fill(reflect.ValueOf(&res).Elem(), 0)
	res.Schema = record.ResultSchema
	for i := range res.Targets {
		tr := &res.Targets[i]
		tr.Score.Level = 2
		tr.Score.Next.Level = 3
		tr.Score.Next.Finding = 0
		for j := range tr.NotExamined {
			tr.NotExamined[j].Cause = record.CauseUnfired
		}
		for j := range tr.Checks {
			tr.Checks[j].Status = record.StatusFail
		}
		if d := tr.Baseline; d != nil {
			d.ScoreChange = record.ScoreLower
			for _, l := range [][]record.FindingKey{d.New, d.Fixed, d.Still} {
				for k := range l {
					l[k].Severity = record.Major
				}
			}
		}
		for j := range tr.Findings {
			f := &tr.Findings[j]
			f.Severity = record.Minor
			for k := range f.Evidence.Intents {
				for l := range f.Evidence.Intents[k].Attempts {
					f.Evidence.Intents[k].Attempts[l].Outcome = record.Info
				}
			}
		}
	}
	err := schema.ValidateReport([]byte(render(t, "json", &res, reports.Options{})))
	require.NoError(t, err, "document the new field(s) in reports/schema/report.v1.json")
}

// fill sets every field reachable from v to a non-zero value.
func fill(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == reflect.TypeOf(time.Duration(0)) {
			v.SetInt(int64(3 * time.Millisecond))
			return
		}
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		e := reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}
