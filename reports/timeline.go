package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/record"
)

// timeline is the geometry of a finding's timeline, in the spirit of
// Jepsen's timeline.html: one lane per intent, its attempts as bars along
// time (coloured by outcome, labelled with their fault), and the ledger's
// effects as marks at the instant the fake recorded them. The template
// draws it as inline SVG.
type timeline struct {
	Width, Height float64
	// PlotX and PlotW bound the time axis.
	PlotX, PlotW float64
	Span         string
	Lanes        []tlLane
	Bars         []tlBar
	Marks        []tlMark
	Ticks        []tlTick
	// LedgerY is the y of the ledger lane's centre line.
	LedgerY, LedgerLabelY float64
	// NoEffects is true when the fakes recorded nothing for the finding's
	// intents: the lane says so, since a lost effect is often the point.
	NoEffects bool
}

type tlLane struct {
	Label    string
	Y, H     float64
	TextY    float64
	Shade    bool
	Subtitle string
}

type tlBar struct {
	X, Y, W, H float64
	Class      string
	// Label is drawn inside the bar when it fits; Fault above it.
	Label      string
	ShowLabel  bool
	LabelX     float64
	LabelY     float64
	Fault      string
	FaultX     float64
	FaultY     float64
	Title      string
	FaultClass string
}

type tlMark struct {
	X, Y   float64
	Points string
	Label  string
	LabelX float64
	LabelY float64
	Title  string
	// GuideY1 and GuideY2 bound a faint vertical guide across the lanes.
	GuideY1, GuideY2 float64
	Stray            bool
}

type tlTick struct {
	X     float64
	Label string
	Y1    float64
	Y2    float64
	TextY float64
}

const (
	tlWidth   = 960.0
	tlLabelW  = 190.0
	tlRight   = 24.0
	tlRowH    = 24.0
	tlBarH    = 14.0
	tlTop     = 18.0 // room for fault labels above the first row
	tlLedgerH = 40.0
	tlAxisH   = 22.0
)

// buildTimeline lays out f's evidence; nil when it has no attempts.
func buildTimeline(f record.Finding) *timeline {
	var t0, t1 time.Time
	widen := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if t0.IsZero() || t.Before(t0) {
			t0 = t
		}
		if t1.IsZero() || t.After(t1) {
			t1 = t
		}
	}
	attempts := 0
	for _, in := range f.Evidence.Intents {
		for _, a := range in.Attempts {
			widen(a.Start)
			widen(a.End)
			attempts++
		}
	}
	if attempts == 0 || t0.IsZero() {
		return nil
	}
	for _, e := range f.Evidence.Effects {
		widen(e.At)
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Millisecond
	}
	tl := &timeline{Width: tlWidth, PlotX: tlLabelW, PlotW: tlWidth - tlLabelW - tlRight, Span: fmtDur(span)}
	xOf := func(t time.Time) float64 {
		return tl.PlotX + float64(t.Sub(t0))/float64(span)*tl.PlotW
	}
	y := tlTop
	for li, in := range f.Evidence.Intents {
		groups := attemptGroups(in)
		// Pack the groups into rows: a row holds groups that do not overlap.
		var rowEnd []time.Time
		rowOf := make([]int, len(groups))
		for gi, g := range groups {
			r := -1
			for i, end := range rowEnd {
				if !g.start.Before(end) {
					r = i
					break
				}
			}
			if r < 0 {
				r = len(rowEnd)
				rowEnd = append(rowEnd, time.Time{})
			}
			rowEnd[r] = g.end
			rowOf[gi] = r
		}
		rows := max(len(rowEnd), 1)
		laneH := float64(rows)*tlRowH + 14 // 14: room for the fault label of the first row
		lane := tlLane{
			Label: fmt.Sprintf("intent %d", in.ID), Subtitle: short(in.Operation+" · "+string(in.Role), 30),
			Y: y, H: laneH, TextY: y + 20, Shade: li%2 == 0,
		}
		tl.Lanes = append(tl.Lanes, lane)
		for gi, g := range groups {
			by := y + 14 + float64(rowOf[gi])*tlRowH + (tlRowH-tlBarH)/2
			x := xOf(g.start)
			w := math.Max(xOf(g.end)-x, 3)
			b := tlBar{X: x, Y: by, W: w, H: tlBarH, Class: g.class, Label: g.label, Fault: g.fault, Title: g.title, FaultClass: g.faultClass}
			b.ShowLabel = w >= float64(7*len(g.label)+6)
			b.LabelX, b.LabelY = x+w/2, by+tlBarH-3.5
			b.FaultX, b.FaultY = x, by-3
			tl.Bars = append(tl.Bars, b)
		}
		y += laneH
	}
	lanesBottom := y
	tl.LedgerY = y + tlLedgerH/2 - 4
	tl.LedgerLabelY = tl.LedgerY + 4
	tl.Lanes = append(tl.Lanes, tlLane{Label: "ledger", Subtitle: "effects the fakes recorded", Y: y, H: tlLedgerH, TextY: y + 16})
	markers := map[string]bool{}
	for _, in := range f.Evidence.Intents {
		markers[in.Marker] = true
	}
	effs := append([]fakes.Effect(nil), f.Evidence.Effects...)
	sort.Slice(effs, func(i, j int) bool { return effs[i].Seq < effs[j].Seq })
	lastLabelEnd := math.Inf(-1)
	for _, e := range effs {
		if e.At.IsZero() {
			continue
		}
		x := xOf(e.At)
		m := tlMark{
			X: x, Y: tl.LedgerY, Points: diamond(x, tl.LedgerY, 6),
			Title:   fmt.Sprintf("#%d %s at +%s", e.Seq, effectText(e), fmtDur(e.At.Sub(t0))),
			GuideY1: tlTop, GuideY2: lanesBottom,
		}
		stray := true
		for _, mk := range e.Markers {
			if markers[mk] {
				stray = false
			}
		}
		m.Stray = stray
		// Label the marks that have room; the others keep their tooltip.
		if x > lastLabelEnd+4 {
			m.Label = e.ID
			m.LabelX, m.LabelY = x, tl.LedgerY+17
			lastLabelEnd = x + float64(7*len(e.ID))
		}
		tl.Marks = append(tl.Marks, m)
	}
	tl.NoEffects = len(tl.Marks) == 0
	y += tlLedgerH
	for _, tk := range ticks(span) {
		x := tl.PlotX + float64(tk)/float64(span)*tl.PlotW
		tl.Ticks = append(tl.Ticks, tlTick{X: x, Label: "+" + fmtDur(tk), Y1: tlTop - 4, Y2: y, TextY: y + 14})
	}
	tl.Height = y + tlAxisH
	return tl
}

// attemptGroup is one bar: an attempt, or all the copies of a burst.
type attemptGroup struct {
	start, end time.Time
	class      string
	label      string
	fault      string
	faultClass string
	title      string
}

func attemptGroups(in record.Intent) []attemptGroup {
	var gs []attemptGroup
	for i := 0; i < len(in.Attempts); i++ {
		a := in.Attempts[i]
		if a.Burst {
			j := i
			counts := map[string]int{}
			var order []string
			g := attemptGroup{start: a.Start, end: a.End, class: "burst"}
			for j < len(in.Attempts) && in.Attempts[j].Burst {
				b := in.Attempts[j]
				if b.End.After(g.end) {
					g.end = b.End
				}
				s := statusText(b.Reply)
				if counts[s] == 0 {
					order = append(order, s)
				}
				counts[s]++
				j++
			}
			var parts []string
			for _, s := range order {
				parts = append(parts, fmt.Sprintf("%s ×%d", s, counts[s]))
			}
			g.label = fmt.Sprintf("burst ×%d", j-i)
			g.title = fmt.Sprintf("attempts %d–%d, a burst of %d copies sent at once: %s", a.N, in.Attempts[j-1].N, j-i, strings.Join(parts, ", "))
			gs = append(gs, g)
			i = j - 1
			continue
		}
		g := attemptGroup{start: a.Start, end: a.End, class: "o-" + string(a.Outcome), label: fmt.Sprint(a.N), fault: a.Fault, faultClass: a.FaultClass}
		if a.End.Before(a.Start) {
			g.end = a.Start
		}
		title := fmt.Sprintf("attempt %d: %s, outcome %s, %s", a.N, statusText(a.Reply), a.Outcome, fmtDur(a.End.Sub(a.Start)))
		if a.Fault != "" {
			title += ", fault " + a.Fault
		}
		if f := effectFieldText(a.Reply); f != "" {
			title += ", " + f
		}
		if a.Crashed {
			title += ", the target was killed and restarted"
		}
		if a.DryRun {
			title += ", dry run"
		}
		g.title = title
		gs = append(gs, g)
	}
	return gs
}

func diamond(x, y, r float64) string {
	return fmt.Sprintf("%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f", x, y-r, x+r, y, x, y+r, x-r, y)
}

// ticks returns about six round instants within span.
func ticks(span time.Duration) []time.Duration {
	raw := float64(span) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []time.Duration
	for t := 0.0; t <= float64(span)+1; t += step {
		out = append(out, time.Duration(t))
	}
	return out
}

// fmtDur renders a duration compactly: 850µs, 12.3ms, 1.25s.
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return trimZeros(fmt.Sprintf("%.2f", float64(d)/1e6)) + "ms"
	case d < time.Second:
		return trimZeros(fmt.Sprintf("%.1f", float64(d)/1e6)) + "ms"
	}
	return trimZeros(fmt.Sprintf("%.2f", d.Seconds())) + "s"
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
