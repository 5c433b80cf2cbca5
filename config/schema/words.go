package schema

import (
	"fmt"
	"strings"
)

// Unknown returns the Message of an Enum whose values are names of
// things, such as checks: `unknown check "x" (did you mean "y"? known
// checks: a, b)`.
func Unknown(thing string, known []string) Message {
	return func(got any) string {
		s := fmt.Sprint(got)
		if g, ok := got.(string); ok {
			s = g
		}
		return fmt.Sprintf("unknown %s %q (%sknown %ss: %s)", thing, s, DidYouMean(s, known), thing, strings.Join(known, ", "))
	}
}

// DidYouMean suggests the known name closest to got, if one is close
// enough to be a typo; the result ends with a space, ready to be followed
// by the list of known names, or is "".
func DidYouMean(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(got), strings.ToLower(k)); dist < bestDist && dist < len(k)/2+1 {
			best, bestDist = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q? ", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30 // no typo is that long, and this keeps the cost bounded
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
