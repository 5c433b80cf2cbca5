package stderrline

import (
	"strings"

	"github.com/idemcheck/idemcheck/internal/lazyregexp"
)

// maxLen bounds the line returned.
const maxLen = 200

// scan is how many lines from the end are searched for an error's line.
const scan = 40

// errorLine matches a line that names an error: "Error: …",
// "ValueError: …", "panic: …", "fatal error: …", "error[E0425]: …".
var errorLine = lazyregexp.New(`(?i)^\s*(?:uncaught\s+)?(?:[\w.$]*(?:error|exception)(?:\[\w+\])?|panic|fatal(?: error)?|traceback[^:]*):`)

// noise matches a line that says nothing of what went wrong: a stack
// frame, a runtime's version banner, a caret, a closing brace.
var noise = lazyregexp.New(`^\s*(?:at\s|File "|goroutine \d|\^+$|[{}\[\]()]+$|Node\.js v\d|exit status \d)`)

// Telling returns the line of stderr that best says what went wrong: the
// last line that names an error among the last lines, else the last line
// that is not a stack frame or a runtime's banner, else the last line;
// cut to 200 bytes. "" when stderr is blank.
func Telling(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return ""
	}
	from := max(0, len(lines)-scan)
	pick := ""
	for i := len(lines) - 1; i >= from && pick == ""; i-- {
		if errorLine.MatchString(lines[i]) {
			pick = lines[i]
		}
	}
	for i := len(lines) - 1; i >= from && pick == ""; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !noise.MatchString(lines[i]) {
			pick = lines[i]
		}
	}
	if pick == "" {
		pick = lines[len(lines)-1]
	}
	pick = strings.TrimSpace(pick)
	if len(pick) > maxLen {
		pick = pick[:maxLen] + "…"
	}
	return pick
}
