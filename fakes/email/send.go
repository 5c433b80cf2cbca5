package email

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/fakes"
	"github.com/idemcheck/idemcheck/fakes/internal/httpfake"
	"github.com/idemcheck/idemcheck/internal/oncehttp"
)

// sendRequest is the part of SendGrid's v3 mail/send body the fake reads.
type sendRequest struct {
	Personalizations []struct {
		To []struct {
			Email string `json:"email"`
			Name  string `json:"name"`
		} `json:"to"`
		Subject string `json:"subject"`
	} `json:"personalizations"`
	From struct {
		Email string `json:"email"`
	} `json:"from"`
	Subject string `json:"subject"`
	Content []struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"content"`
}

// apiError is one entry of a SendGrid error body.
type apiError struct {
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

// failure is a SendGrid-shaped error reply.
func failure(status int, field, format string, args ...any) httpfake.Reply {
	return httpfake.JSON(status, map[string][]apiError{"errors": {{Message: fmt.Sprintf(format, args...), Field: field}}})
}

// unavailable is encoded when a fake is first set up, not when the
// program starts.
var unavailable = sync.OnceValue(func() httpfake.Reply {
	return failure(http.StatusServiceUnavailable, "", "injected: service unavailable")
})

// handleSend serves POST /v3/mail/send: fault rules first, then
// idempotency, then the message itself.
func (s *Server) handleSend(w http.ResponseWriter, r *http.Request) {
	// Read into one buffer of the announced length; past the cap the
	// server's MaxBytesHandler fails the read.
	body, err := oncehttp.ReadAll(r.Body, r.ContentLength, MaxMessageBytes+1)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			failure(http.StatusRequestEntityTooLarge, "", "the request body is larger than %d bytes", mbe.Limit).Write(w)
			return
		}
		failure(http.StatusBadRequest, "", "cannot read the request body: %v", err).Write(w)
		return
	}
	markers := httpfake.Markers(r, body)
	httpfake.Faults{
		Rules: &s.rules, Server: s.http, Ledger: s.ledger, Unavailable: unavailable(),
		Closing: failure(http.StatusServiceUnavailable, "", "the fake is shutting down"),
		Custom: func(rule fakes.Rule) (httpfake.Reply, bool) {
			stage, code, ok := ParseReject(rule.Action)
			switch {
			case !ok || stage != StageData:
				return httpfake.Reply{}, false
			case code < 500:
				return unavailable(), true
			}
			return failure(http.StatusBadRequest, "", "injected: message rejected (as SMTP %d)", code), true
		},
	}.Serve(w, r, markers, func() httpfake.Reply { return s.send(r, body, markers) })
}

// send validates the request and handles its idempotency key around
// accept.
func (s *Server) send(r *http.Request, body []byte, markers []string) httpfake.Reply {
	m, canon, rp := parseSend(r.Header.Get("Content-Type"), body)
	if rp != nil {
		return *rp
	}
	m.Markers = markers
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" || s.ignoreKeys {
		m.Key = key
		return s.accept(m)
	}
	if len(key) > httpfake.MaxKeyLen {
		return failure(http.StatusBadRequest, "Idempotency-Key", "Idempotency-Key is %d characters long; the maximum is %d", len(key), httpfake.MaxKeyLen)
	}
	m.Key = key
	switch res, stored := s.keys.Claim(key, canon); res {
	case httpfake.InFlight:
		return failure(http.StatusConflict, "Idempotency-Key", "a request with Idempotency-Key %s is still in flight; retry after it completes", strconv.Quote(key))
	case httpfake.Mismatch:
		return failure(http.StatusUnprocessableEntity, "Idempotency-Key", "Idempotency-Key %s was first used with another request body; use a new key for a new message", strconv.Quote(key))
	case httpfake.Done:
		return stored
	}
	rp2 := s.accept(m)
	s.keys.Complete(key, rp2)
	return rp2
}

// accept records the message and returns SendGrid's 202.
func (s *Server) accept(m Message) httpfake.Reply {
	m, seq := s.record(m)
	return httpfake.Reply{Status: http.StatusAccepted, Header: http.Header{"X-Message-Id": {m.ID}}, Effect: seq}
}

// parseSend validates a send body. It returns the message to record, the
// body's canonical JSON (the idempotency fingerprint), or an error reply.
func parseSend(contentType string, body []byte) (Message, string, *httpfake.Reply) {
	bad := func(field, format string, args ...any) (Message, string, *httpfake.Reply) {
		rp := failure(http.StatusBadRequest, field, format, args...)
		return Message{}, "", &rp
	}
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return bad("", "Content-Type must be application/json, got %q", contentType)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return bad("", "the body is not JSON: %v", err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return bad("", "the body must be a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return bad("", "the body must hold exactly one JSON object")
	}
	canon, _ := json.Marshal(doc) // sorted keys: the canonical form
	var req sendRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return bad("", "the body does not have SendGrid's shape: %v", err)
	}
	m := Message{Via: "http", From: req.From.Email, Subject: req.Subject, Raw: string(body)}
	if len(req.Personalizations) == 0 {
		return bad("personalizations", `personalizations are required, e.g. [{"to":[{"email":"a@example.com"}]}]`)
	}
	for i, p := range req.Personalizations {
		if len(p.To) == 0 {
			return bad(fmt.Sprintf("personalizations.%d.to", i), "every personalization needs at least one to address")
		}
		for j, to := range p.To {
			if !strings.Contains(to.Email, "@") {
				return bad(fmt.Sprintf("personalizations.%d.to.%d.email", i, j), "%q is not an email address", to.Email)
			}
			m.To = append(m.To, to.Email)
		}
		if m.Subject == "" && p.Subject == "" {
			return bad("subject", "a subject is required (top-level, or in every personalization)")
		}
		if m.Subject == "" {
			m.Subject = p.Subject
		}
	}
	if !strings.Contains(m.From, "@") {
		return bad("from.email", "from.email is required and must be an email address")
	}
	if len(req.Content) == 0 {
		return bad("content", `content is required, e.g. [{"type":"text/plain","value":"…"}]`)
	}
	var parts []string
	for i, c := range req.Content {
		if c.Type == "" || c.Value == "" {
			return bad(fmt.Sprintf("content.%d", i), "every content entry needs a type and a non-empty value")
		}
		parts = append(parts, c.Value)
	}
	m.Text = strings.Join(parts, "\n\n")
	return m, string(canon), nil
}
