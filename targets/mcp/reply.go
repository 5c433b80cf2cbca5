package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/harness"
	"github.com/idemcheck/idemcheck/internal/stderrline"
)

// codeRejected is the JSON-RPC error code the SDK gives a message its
// transport could not deliver or whose HTTP exchange failed (a reset, a
// 503 instead of the reply): the client's side, not the server's answer.
const codeRejected = -32005

// maxBody is how much of a result a Reply carries as evidence.
const maxBody = 2048

// Statuses a reply gets when the result does not say one: a result is
// 200, a result with isError 400 (a refusal), a JSON-RPC error 0.
const (
	statusOK      = 200
	statusIsError = 400
)

// reply turns what the call returned into the attempt's reply:
//
//   - a result is ok; with isError: true it is a failure;
//   - a JSON-RPC error is a failure;
//   - a lost or cancelled call, and a dead transport, are unknown (info).
//
// rep is what the relay or the proxy did (got is false when nothing was
// armed or it never reached them).
func (t *Target) reply(p *plan, res *sdk.CallToolResult, err error, cctx context.Context, timeout time.Duration, rep faults.Report, got bool, s *session) callReply {
	out := callReply{Reply: harness.Reply{Forwarded: true, Withheld: rep.Withheld}}
	if got {
		out.Forwarded = rep.Forwarded
	}
	if got && rep.Refused {
		out.Outcome = harness.Fail
		out.Error = "the server could not be reached: " + rep.UpstreamError
		out.sessionLost = true
		return out
	}
	if err != nil {
		var rpc *jsonrpc.Error
		switch {
		case errors.As(err, &rpc) && rpc.Code != codeRejected:
			out.Outcome = harness.Fail
			out.Error = fmt.Sprintf("JSON-RPC error %d: %s", rpc.Code, rpc.Message)
			if got && !rep.Forwarded {
				out.Forwarded = false
			}
			return out
		case got && !rep.Forwarded && rep.UpstreamError == "":
			out.Outcome = harness.Fail // provably never reached the server
		default:
			out.Outcome = harness.Info
		}
		switch {
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			out.TimedOut = true
			out.Error = fmt.Sprintf("no reply within %s: the client gave up and sent notifications/cancelled", timeout)
		case rep.Withheld:
			out.Error = "the server replied, but the reply was lost on the way: the client gave up on the call (notifications/cancelled)"
		case rep.UpstreamError != "":
			out.Error = "the server did not reply: " + rep.UpstreamError
		default:
			out.Error = err.Error()
		}
		if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) || !s.alive() {
			out.sessionLost = true
			out.Error += "; the session's transport is dead"
			if s.proc != nil {
				out.Stderr = s.proc.stderr.String()
			}
		}
		return out
	}
	if got && rep.Withheld {
		// The relay passed the reply on although the fault withheld it:
		// cannot happen, but never trust a reply a fault said was lost.
		out.Outcome = harness.Info
		return out
	}
	raw, _ := json.Marshal(res)
	out.Body = string(raw)
	if len(out.Body) > maxBody {
		out.Body = out.Body[:maxBody]
	}
	doc := document(res)
	out.Effect, out.HasEffect = harness.JSONPath(doc, p.effect)
	out.Identity, _ = harness.JSONPath(doc, p.identity)
	if v, ok := harness.JSONPath(doc, t.cfg.Replayed); ok {
		out.Replayed = v == "true"
	}
	out.Status = statusOK
	out.Outcome = harness.OK
	if res.IsError {
		out.Status = statusIsError
		out.Outcome = harness.Fail
		out.Error = "isError: " + resultText(res)
	}
	if v, ok := harness.JSONPath(doc, t.cfg.Status); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 100 && n <= 599 {
			out.Status = n
		}
	}
	return out
}

// document is the JSON a result's effect and identity are read from: its
// structuredContent, else its first text content parsed as JSON.
func document(res *sdk.CallToolResult) any {
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return harness.DecodeJSON(b)
		}
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			return harness.DecodeJSON([]byte(tc.Text))
		}
	}
	return nil
}

// resultText is the head of a result's text, for evidence.
func resultText(res *sdk.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			s := strings.TrimSpace(tc.Text)
			if len(s) > 300 {
				s = s[:300] + "…"
			}
			return s
		}
	}
	return "(no text content)"
}

// stderrHint quotes the line of stderr that says what went wrong (see
// stderrline.Telling): "; stderr says: …".
func stderrHint(stderr string) string {
	if s := stderrline.Telling(stderr); s != "" {
		return "; stderr says: " + s
	}
	return ""
}
