package email

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/fakes"
)

// Stage is the SMTP command a Reject action answers.
type Stage string

// The SMTP stages a message can be rejected at.
const (
	StageMail Stage = "mail"
	StageRcpt Stage = "rcpt"
	StageData Stage = "data"
)

// Reject returns the action that answers stage with code (400–599) instead
// of accepting it, e.g. Reject(StageRcpt, 550) is "smtp-rcpt-550". Arm it
// in a fakes.Rule like any other action.
func Reject(stage Stage, code int) fakes.Action {
	return fakes.Action(fmt.Sprintf("smtp-%s-%d", stage, code))
}

// ParseReject reports whether a is an action made by Reject, and its stage
// and code.
func ParseReject(a fakes.Action) (Stage, int, bool) {
	rest, ok := strings.CutPrefix(string(a), "smtp-")
	if !ok {
		return "", 0, false
	}
	st, num, ok := strings.Cut(rest, "-")
	if !ok {
		return "", 0, false
	}
	stage := Stage(st)
	if stage != StageMail && stage != StageRcpt && stage != StageData {
		return "", 0, false
	}
	code, err := strconv.Atoi(num)
	if err != nil || code < 400 || code > 599 || strconv.Itoa(code) != num {
		return "", 0, false
	}
	return stage, code, true
}

// rejectHint names the Reject actions in a control endpoint's error.
const rejectHint = "smtp-{mail,rcpt,data}-{400..599}"
