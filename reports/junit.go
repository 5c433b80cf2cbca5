package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/record"
)

// The JUnit XML shape CI systems read (Jenkins, GitLab, GitHub test
// reporters): testsuites > testsuite > testcase > failure | error |
// skipped, with properties and system-out. One testsuite per target: a
// testcase for its score against the gate, and one per check.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *junitText      `xml:"system-out,omitempty"`
}

// junitText is character data kept readable: CDATA keeps its newlines.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

// JUnit writes the JUnit XML report: a testsuite per target (with the seed
// and the score as properties), a testcase "score" that fails when the
// target did not meet the run's gate, and a testcase per check, failing
// with the check's findings and their replay commands, or skipped with the
// reason. A failed check whose findings the gate tolerates (a low
// --min-score, or findings the baseline already had) is skipped, its
// findings in its system-out: so the file has a failure exactly when the
// run's exit code is 1. A target the harness could not test is one
// testcase in error (exit code 3).
func JUnit(w io.Writer, res *record.Result, o Options) error {
	res = withGate(cleaned(res), o) // nothing a target printed reaches the report raw
	doc := junitSuites{Name: "idemcheck", Time: seconds(res.Duration)}
	stamp := ""
	if !res.Started.IsZero() {
		stamp = res.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, t := range res.Targets {
		s := junitSuite{Name: t.Name, Time: seconds(t.Duration), Timestamp: stamp}
		score := fmt.Sprint(t.Score.Level)
		if t.Error != "" || t.Score.Partial {
			score = "-1"
		}
		s.Properties = append(s.Properties,
			junitProperty{"seed", fmt.Sprint(res.Seed)},
			junitProperty{"score", score},
			junitProperty{"kind", t.Kind},
		)
		if t.Score.Partial {
			s.Properties = append(s.Properties, junitProperty{"score_partial", "true"})
		}
		if g := res.Gate; g != nil && g.Replay {
			s.Properties = append(s.Properties, junitProperty{"gate", "replay"})
		} else if g != nil {
			s.Properties = append(s.Properties, junitProperty{"min_score", fmt.Sprint(g.MinScore)})
			if g.Baseline != "" {
				s.Properties = append(s.Properties, junitProperty{"baseline", g.Baseline})
			}
		}
		for _, p := range []junitProperty{
			{"version", res.Meta.Version}, {"config", res.Meta.Config}, {"config_digest", res.Meta.ConfigDigest},
			{"command", res.Meta.Command}, {"shard", res.Meta.Shard}, {"replay", RunCommand(res)},
		} {
			if p.Value != "" {
				s.Properties = append(s.Properties, p)
			}
		}
		gs := notExamined(t)
		if len(gs) > 0 {
			lines := make([]string, len(gs))
			for i, g := range gs {
				lines[i] = g.String()
			}
			s.Properties = append(s.Properties, junitProperty{"not_examined", strings.Join(lines, "; ")})
		}
		if lines := coverageLines(t); len(lines) > 0 {
			s.Properties = append(s.Properties, junitProperty{"coverage", strings.Join(lines, "; ")})
		}
		classname := "idemcheck." + t.Name
		if t.Error != "" {
			s.Cases = append(s.Cases, junitCase{
				Name: "harness", Classname: classname, Time: "0",
				Error: &junitMessage{Message: "could not be tested: " + t.Error, Type: "untested", Body: t.Error},
			})
			s.SystemOut = &junitText{"not scored: the harness could not test this target: " + t.Error}
		} else {
			s.SystemOut = &junitText{scoreText(t) + "\ngate: " + gateReason(t) + trialBlock(t)}
			s.Cases = append(s.Cases, scoreCase(t, classname))
		}
		byCheck := map[string][]record.Finding{}
		for _, f := range t.Findings {
			byCheck[f.Check] = append(byCheck[f.Check], f)
		}
		for _, c := range t.Checks {
			tc := junitCase{Name: c.ID, Classname: classname, Time: "0"}
			switch c.Status {
			case record.StatusSkip:
				tc.Skipped = &junitMessage{Message: c.Note}
				if why := partlyExamined(t, c.ID); why != "" {
					tc.Skipped.Message = why
				}
			case record.StatusPass:
				if why := partlyExamined(t, c.ID); why != "" {
					tc.SystemOut = &junitText{why}
				}
			case record.StatusFail:
				tc.Failure = junitFailure(res, c, byCheck[c.ID])
				if trialFailed(t, c.ID) {
					tc.Failure.Body += trialBlock(t)[1:]
				}
				if !countsForGate(t, c.ID) {
					// Within the gate: not a failure, or the file would
					// fail a job that passed.
					tc.Skipped = &junitMessage{Message: "failed, within the gate: " + gateReason(t)}
					tc.SystemOut = &junitText{tc.Failure.Body}
					tc.Failure = nil
				}
			}
			s.Cases = append(s.Cases, tc)
		}
		for _, tc := range s.Cases {
			s.Tests++
			switch {
			case tc.Error != nil:
				s.Errors++
			case tc.Failure != nil:
				s.Failures++
			case tc.Skipped != nil:
				s.Skipped++
			}
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitFailure(res *record.Result, c record.CheckResult, fs []record.Finding) *junitMessage {
	m := &junitMessage{Message: c.Note, Type: "fail"}
	if len(fs) == 0 {
		return m
	}
	worst := fs[0].Severity
	var b strings.Builder
	for i, f := range fs {
		if rank(f.Severity) > rank(worst) {
			worst = f.Severity
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s %s", f.Severity, f.Check)
		if op := operationLabel(f); op != "" {
			fmt.Fprintf(&b, " %s", op)
		}
		if f.Fault != "" {
			fmt.Fprintf(&b, " [%s]", record.FaultAt(f.Fault, f.Point))
		}
		fmt.Fprintf(&b, ": %s\n", f.Message)
		b.WriteString(stepsText(f, "  "))
		if r := findingReplay(res, f); r != "" {
			fmt.Fprintf(&b, "  replay: %s\n", r)
		}
	}
	m.Type = string(worst)
	m.Message = fs[0].Message
	if len(fs) > 1 {
		m.Message = fmt.Sprintf("%d findings; the first: %s", len(fs), fs[0].Message)
	}
	m.Body = b.String()
	return m
}

// findingReplay is f's own replay command if it has one, else the run's.
func findingReplay(res *record.Result, f record.Finding) string {
	if f.Replay != "" {
		return f.Replay
	}
	return ReplayCommand(res, f)
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

// scoreCase is the testcase of a target's score against the gate.
func scoreCase(t record.TargetResult, classname string) junitCase {
	tc := junitCase{Name: "score", Classname: classname, Time: "0"}
	if t.Gate != nil && !t.Gate.Met {
		tc.Failure = &junitMessage{Message: "gate not met: " + t.Gate.Reason, Type: "gate", Body: scoreText(t)}
	} else {
		tc.SystemOut = &junitText{"gate met: " + gateReason(t)}
	}
	return tc
}

func gateReason(t record.TargetResult) string {
	if t.Gate == nil {
		return "no gate applied"
	}
	return t.Gate.Reason
}

// scoreText says a target's score and why, in two lines.
func scoreText(t record.TargetResult) string {
	label := ScoreLabel(t)
	if !t.Score.Partial {
		label += "/3"
	}
	s := fmt.Sprintf("score %s\n%s", label, t.Score.Reason)
	if n := t.Score.Next; n != nil {
		s += fmt.Sprintf("\nblocked by %s: %s", n.Check, n.Message)
	}
	return s
}

// partlyExamined says what of check id t's run did not examine, and why,
// as one line; "" when nothing.
func partlyExamined(t record.TargetResult, id string) string {
	var parts []string
	for _, u := range t.NotExamined {
		if u.Check == id {
			parts = append(parts, u.String())
		}
	}
	return strings.Join(parts, "; ")
}
