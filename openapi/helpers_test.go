package openapi_test

import "fmt"

// fmtSscan reads the line number of a TODO ("line 12: …").
func fmtSscan(todo string, n *int) (int, error) { return fmt.Sscanf(todo, "line %d:", n) }
