package httpfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/fakes"
)

// StandardActions are the fakes.Rule actions every fake understands.
var StandardActions = []fakes.Action{
	fakes.FailBefore, fakes.FailAfter, fakes.ResetAfter, fakes.Delay, fakes.Hang, fakes.HangAfter, fakes.Pass, fakes.AwaitCaller,
}

// ruleRequest is the body of POST /_idemcheck/rules: a fakes.Rule, whose
// delay may also be written as a duration string such as "250ms".
type ruleRequest struct {
	Marker string          `json:"marker"`
	Times  int             `json:"times"`
	Action fakes.Action    `json:"action"`
	Delay  json.RawMessage `json:"delay"`
	// Probability makes the rule act on a matching request only with that
	// probability, drawn from the fake's seeded source.
	Probability float64 `json:"probability"`
}

// DecodeRule reads and checks a rule. known, if set, accepts actions beyond
// StandardActions (a fake's own), and names them in errors via extra.
func DecodeRule(body io.Reader, known func(fakes.Action) bool, extra string) (fakes.Rule, error) {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var req ruleRequest
	if err := dec.Decode(&req); err != nil {
		return fakes.Rule{}, fmt.Errorf(`decode JSON (want {"marker":"idem-…","times":1,"action":"fail-after","delay":"100ms"}): %w`, err)
	}
	rule := fakes.Rule{Marker: req.Marker, Times: req.Times, Action: req.Action, Probability: req.Probability}
	if req.Probability < 0 || req.Probability > 1 {
		return rule, fmt.Errorf("probability is %v; want a number from 0 to 1", req.Probability)
	}
	if !slices.Contains(StandardActions, req.Action) && (known == nil || !known(req.Action)) {
		names := make([]string, 0, len(StandardActions))
		for _, a := range StandardActions {
			names = append(names, string(a))
		}
		if extra != "" {
			names = append(names, extra)
		}
		return rule, fmt.Errorf("action %q is unknown; want one of %s", req.Action, strings.Join(names, ", "))
	}
	if req.Times < 0 {
		return rule, fmt.Errorf("times is %d; want 0 (meaning 1) or more", req.Times)
	}
	d, err := decodeDelay(req.Delay)
	if err != nil {
		return rule, err
	}
	rule.Delay = d
	return rule, nil
}

// decodeDelay accepts nanoseconds (as fakes.Rule encodes a time.Duration)
// or a time.ParseDuration string.
func decodeDelay(raw json.RawMessage) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return 0, nil
	}
	var d time.Duration
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("delay: %w", err)
		}
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("delay: %w; write it like \"250ms\" or as nanoseconds", err)
		}
	} else {
		var ns int64
		if err := json.Unmarshal(raw, &ns); err != nil {
			return 0, fmt.Errorf("delay %s is neither nanoseconds nor a duration string like \"250ms\"", raw)
		}
		d = time.Duration(ns)
	}
	if d < 0 {
		return 0, errors.New("delay is negative; want 0 or more")
	}
	return d, nil
}
