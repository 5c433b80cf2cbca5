package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/internal/listener"
)

// The request codes a startup packet may carry instead of a protocol
// version, and PostgreSQL's bound on a startup packet.
const (
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
	cancelRequestCode = 80877102
	maxStartupPacket  = 10000
	// tlsHandshake is the first byte of a TLS ClientHello: a client that
	// opens TLS directly, without asking (sslnegotiation=direct).
	tlsHandshake = 0x16
)

// serve relays one target connection.
func (p *Proxy) serve(ctx context.Context, id uint64, client net.Conn) {
	_ = client.SetDeadline(time.Now().Add(p.cfg.StartupTimeout))
	pkt, code, err := p.readStartup(client)
	if err != nil {
		p.startupFailed(id, client, err)
		return
	}
	if code == cancelRequestCode {
		p.forwardCancel(pkt)
		return
	}
	up, err := p.srv.Dial(p.cfg.Upstream, p.cfg.DialTimeout)
	if err != nil {
		err = fmt.Errorf("%w: the proxy could not connect to the database at %s: %v", deps.ErrUpstreamUnreachable, p.cfg.Upstream, err)
		p.problem(id, err)
		_ = writeError(client, "FATAL", "08006", "idemcheck proxy: "+err.Error())
		return
	}
	defer p.srv.Release(up)
	_ = up.SetDeadline(time.Now().Add(p.cfg.StartupTimeout))
	if _, err := up.Write(pkt); err != nil {
		err = fmt.Errorf("%w: writing the startup message to %s: %v", deps.ErrUpstreamUnreachable, p.cfg.Upstream, err)
		p.problem(id, err)
		_ = writeError(client, "FATAL", "08006", "idemcheck proxy: "+err.Error())
		return
	}
	newConn(p, id, client, up).run()
}

// startupFailed reports why a connection ended before its startup
// message; a client that simply went away is no problem.
func (p *Proxy) startupFailed(id uint64, client net.Conn, err error) {
	switch {
	case errors.Is(err, deps.ErrClientRequiresTLS), errors.Is(err, deps.ErrClientProtocol):
		p.problem(id, err)
		if errors.Is(err, deps.ErrClientProtocol) {
			_ = writeError(client, "FATAL", "08P01", "idemcheck proxy: "+err.Error())
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		p.problem(id, fmt.Errorf("%w: the target connected but sent no startup message within %s", deps.ErrClientProtocol, p.cfg.StartupTimeout))
	}
}

// readStartup reads the target's startup packet, declining TLS and GSS
// encryption as often as it asks, and returns the packet whole (length
// included) with its code: a protocol version or cancelRequestCode.
func (p *Proxy) readStartup(c net.Conn) ([]byte, uint32, error) {
	declined := false
	for range 3 {
		var h [4]byte
		if _, err := io.ReadFull(c, h[:1]); err != nil {
			if declined && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err)) {
				return nil, 0, fmt.Errorf("%w: it asked for an encrypted connection, was told the proxy offers none, and closed the connection (sslmode=require or stricter); the proxy speaks plain text only: set sslmode=prefer or disable for the target's database URL", deps.ErrClientRequiresTLS)
			}
			return nil, 0, err
		}
		if h[0] == tlsHandshake {
			return nil, 0, fmt.Errorf("%w: it opened TLS directly (sslnegotiation=direct); the proxy speaks plain text only: set sslmode=prefer or disable for the target's database URL", deps.ErrClientRequiresTLS)
		}
		if _, err := io.ReadFull(c, h[1:]); err != nil {
			return nil, 0, err
		}
		n := int(binary.BigEndian.Uint32(h[:]))
		if n < 8 || n > maxStartupPacket {
			return nil, 0, fmt.Errorf("%w: a startup packet of %d bytes, outside 8..%d; is the target speaking PostgreSQL?", deps.ErrClientProtocol, n, maxStartupPacket)
		}
		pkt := make([]byte, n)
		copy(pkt, h[:])
		if _, err := io.ReadFull(c, pkt[4:]); err != nil {
			return nil, 0, err
		}
		code := binary.BigEndian.Uint32(pkt[4:8])
		switch code {
		case sslRequestCode, gssEncRequestCode:
			declined = true
			if _, err := c.Write([]byte{'N'}); err != nil {
				return nil, 0, err
			}
			continue
		case cancelRequestCode:
			return pkt, code, nil
		}
		if code>>16 != 3 {
			return nil, 0, fmt.Errorf("%w: the startup asks for protocol version %d.%d; PostgreSQL and the proxy speak 3", deps.ErrClientProtocol, code>>16, code&0xffff)
		}
		return pkt, code, nil
	}
	return nil, 0, fmt.Errorf("%w: the target asked for encryption three times in one connection", deps.ErrClientProtocol)
}

// forwardCancel passes a cancel request to the database on a connection of
// its own, as a client does: the key in it is the database's (the proxy
// forwards BackendKeyData unchanged), so the database finds the backend.
func (p *Proxy) forwardCancel(pkt []byte) {
	up, err := p.srv.Dial(p.cfg.Upstream, p.cfg.DialTimeout)
	if err != nil {
		return
	}
	defer p.srv.Release(up)
	_ = up.SetDeadline(time.Now().Add(p.cfg.StartupTimeout))
	_, _ = up.Write(pkt)
	// The database closes the connection once it has read the request.
	_, _ = io.Copy(io.Discard, up)
}

// refuse turns a new connection away while the proxy refuses them
// (listener.Handler).
func (p *Proxy) refuse(ctx context.Context, id uint64, c net.Conn, how deps.Refusal) {
	p.ctl.Events().Record(deps.Event{Kind: deps.EventRefused, Conn: id, Statement: string(how)})
	if how != deps.RefuseStarting {
		listener.Reset(c)
		return
	}
	_ = c.SetDeadline(time.Now().Add(p.cfg.StartupTimeout))
	if _, code, err := p.readStartup(c); err != nil || code == cancelRequestCode {
		return
	}
	_ = writeError(c, "FATAL", "57P03", defaultMessage("57P03"))
}

// writeError writes one ErrorResponse to w.
func writeError(w io.Writer, severity, code, message string) error {
	b, err := (&pgproto3.ErrorResponse{Severity: severity, SeverityUnlocalized: severity, Code: code, Message: message}).Encode(nil)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}
