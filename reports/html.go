package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/checks"
	"github.com/idemcheck/idemcheck/internal/lazyregexp"
	"github.com/idemcheck/idemcheck/record"
)

//go:embed html.tmpl
var htmlSource string

// htmlTemplate is parsed when a report is first written, not when the
// program starts: most starts of the binary write none.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"dur":   fmtDur,
		"upper": strings.ToUpper,
		"f1":    func(x float64) string { return fmt.Sprintf("%.1f", x) },
		"ms":    func(ms int64) string { return fmtDur(time.Duration(ms) * time.Millisecond) },
	}).Parse(htmlSource))
})

// HTML writes one self-contained HTML file: no fetch of any kind (inline
// CSS, a few lines of inline script, inline SVG; a Content-Security-Policy
// forbids the rest). Per target it shows the score and why, a check × fault
// matrix, and for each finding a timeline of its attempts and effects and
// its minimal counterexample as a list of steps.
func HTML(w io.Writer, res *record.Result, o Options) error {
	res = cleaned(res) // nothing a target printed reaches the report raw
	return htmlTemplate().Execute(w, buildPage(res, o))
}

type htmlPage struct {
	Title   string
	Verdict string
	Failed  bool
	Seed    uint64
	Meta    record.Meta
	Started string
	Elapsed string
	Replay  string
	Summary RunSummary
	Targets []htmlTarget
}

type htmlTarget struct {
	Name, Kind, Anchor string
	Score              string
	ScoreClass         string
	Below              bool
	MinScore           int
	Error              string
	Reason             string
	Next               *record.Gap
	NextAnchor         string
	Summary            Summary
	Faults             []string
	Unsupported        []string
	// NotExamined says which checks were not examined, and why.
	NotExamined []string
	// Attribution says what the effect observers saw, how effects were
	// attributed, and what the run left out to attribute them.
	Attribution []string
	// Coverage says which effect points each fault reached.
	Coverage     []string
	Matrix       *Matrix
	Properties   map[string]string
	Findings     []htmlFinding
	FailedChecks string
	// TrialSteps is the generated trial's minimal counterexample, when a
	// trial found something.
	TrialSteps string
	// TrialInFinding is true when a finding shows TrialSteps; otherwise the
	// target's section does.
	TrialInFinding bool
}

type htmlFinding struct {
	Anchor, Severity, Check, Operation, Fault, Message, Replay string
	Trial, Flaky                                               bool
	Timeline                                                   *timeline
	Steps                                                      []IntentSteps
	Open                                                       bool
}

var anchorUnsafe = lazyregexp.New(`[^a-zA-Z0-9_-]+`)

func buildPage(res *record.Result, o Options) htmlPage {
	rep := Build(res)
	p := htmlPage{
		Title:   fmt.Sprintf("idemcheck report: %s, seed %d", plural(len(res.Targets), "target", "targets"), res.Seed),
		Seed:    res.Seed,
		Meta:    res.Meta,
		Elapsed: fmtDur(res.Duration),
		Replay:  RunCommand(res),
		Summary: rep.Summary,
	}
	p.Verdict = strings.NewReplacer("**", "", `\|`, "|", "&lt;", "<", "&gt;", ">").Replace(verdictLine(res, o.MinScore))
	p.Failed = !strings.HasPrefix(p.Verdict, "PASS")
	if !res.Started.IsZero() {
		p.Started = res.Started.UTC().Format(time.RFC3339)
	}
	props := map[string]string{}
	for _, c := range checks.Checks() {
		props[c.ID] = c.Property
	}
	for ti, t := range res.Targets {
		tr := rep.Targets[ti]
		ht := htmlTarget{
			Name: t.Name, Kind: t.Kind, Anchor: fmt.Sprintf("t%d-%s", ti, anchorUnsafe.ReplaceAllString(t.Name, "_")),
			Error: t.Error, Reason: t.Score.Reason, Next: t.Score.Next, Summary: tr.Summary,
			Faults: tr.Faults, Unsupported: tr.Unsupported, Properties: props, MinScore: o.MinScore,
			FailedChecks: failedChecks(t),
		}
		for _, g := range notExamined(t) {
			ht.NotExamined = append(ht.NotExamined, g.String())
		}
		ht.Attribution = attributionLines(t)
		ht.Coverage = coverageLines(t)
		ht.TrialSteps = numbered(TrialSteps(t))
		if t.Error != "" {
			ht.Score, ht.ScoreClass = "–", "serr"
		} else {
			ht.Score, ht.ScoreClass = fmt.Sprintf("%d/3", t.Score.Level), fmt.Sprintf("s%d", t.Score.Level)
			if t.Score.Partial {
				ht.Score, ht.ScoreClass = "partial", "spartial"
			}
			ht.Below = !t.Score.Partial && t.Score.Level < o.MinScore
			ht.Matrix = BuildMatrix(t)
		}
		// Findings, worst first; the anchor keeps the original index, which
		// is what Gap.Finding refers to.
		order := make([]int, len(t.Findings))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			return rank(t.Findings[order[a]].Severity) > rank(t.Findings[order[b]].Severity)
		})
		for n, i := range order {
			f := t.Findings[i]
			ht.Findings = append(ht.Findings, htmlFinding{
				Anchor: fmt.Sprintf("%s-f%d", ht.Anchor, i), Severity: string(f.Severity), Check: f.Check,
				Operation: operationLabel(f), Fault: record.FaultAt(f.Fault, f.Point), Message: f.Message, Replay: findingReplay(res, f),
				Trial: f.Trial, Flaky: f.Flaky,
				Timeline: buildTimeline(f), Steps: Counterexample(f), Open: n < 3,
			})
			ht.TrialInFinding = ht.TrialInFinding || f.Trial
		}
		if n := t.Score.Next; n != nil && n.Finding >= 0 && n.Finding < len(t.Findings) {
			ht.NextAnchor = fmt.Sprintf("%s-f%d", ht.Anchor, n.Finding)
		}
		p.Targets = append(p.Targets, ht)
	}
	return p
}
