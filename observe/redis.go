package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Redis reads effects a target keeps in Redis, with read commands only:
// keys by pattern (SCAN), the entries of a stream (XRANGE) or the fields
// of a hash (HSCAN). An item whose name or value holds the marker is an
// effect of the intent; its identity is the key, the entry id or the
// field.
//
//	{url: "redis://127.0.0.1:6379/0", keys: "order:*"}
//	{url: "{{env.REDIS_URL}}", keys: "charge:{{marker}}:*"}   the pattern names the intent
//	{url: …, stream: "events"}
//	{url: …, hash: "results"}
type Redis struct {
	// URL is redis://[user:password@]host:port[/db]; it may use
	// {{env.NAME}}, the whole URL included.
	URL string `json:"url"`
	// Keys is a SCAN pattern; with {{marker}} in it, every key it matches
	// is the intent's (the marker is escaped for the pattern).
	Keys string `json:"keys,omitempty"`
	// Stream is the key of a stream: its entries are the items.
	Stream string `json:"stream,omitempty"`
	// Hash is the key of a hash: its fields are the items.
	Hash string `json:"hash,omitempty"`
	// Remote allows a server whose host is not loopback. Without it Open
	// refuses, before any connection, a URL whose host is neither a
	// loopback address nor localhost (taken as 127.0.0.1, never looked
	// up), as the SQL observer does.
	Remote bool `json:"-"`
}

var _ Source = Redis{}

// Type implements Source.
func (Redis) Type() string { return "redis" }

// EffectKind implements EffectKind: an entry.
func (Redis) EffectKind() string { return "entry" }

// Validate implements Validator.
func (r Redis) Validate() error {
	n := 0
	for _, s := range []string{r.Keys, r.Stream, r.Hash} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return errors.New("set one of keys (a SCAN pattern), stream or hash")
	}
	if r.URL == "" {
		return errors.New("url: required: redis://host:port[/db]")
	}
	if !placeholderFirst(r.URL) {
		if _, err := redis.ParseURL(r.URL); err != nil {
			return fmt.Errorf("url %s: %v", redactRedis(r.URL), err)
		}
	}
	if strings.Contains(r.Stream+r.Hash, "{{marker}}") {
		return errors.New("{{marker}} can only be in keys: a stream or a hash is one key")
	}
	return nil
}

// Open implements Source: it connects and checks that the server answers.
func (r Redis) Open(ctx context.Context, w Where) (Finder, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	u, err := w.Expand(r.URL)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		return nil, fmt.Errorf("url %s: %v: expected redis://host:port[/db]", redactRedis(u), err)
	}
	if opts.Network != "unix" && !r.Remote {
		host, port, err := net.SplitHostPort(opts.Addr)
		if err != nil {
			return nil, fmt.Errorf("url %s: %v", redactRedis(u), err)
		}
		if strings.EqualFold(host, "localhost") {
			opts.Addr = net.JoinHostPort("127.0.0.1", port)
		} else if !loopbackAddr(opts.Addr) {
			return nil, fmt.Errorf("url %s: refusing to connect to %q: not a loopback host (the target does not set allow_remote)", redactRedis(u), host)
		}
	}
	opts.ClientName = "idemcheck-observer"
	opts.MaxRetries = -1 // a failed read is read again by the poll, not here
	c := redis.NewClient(opts)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %w", redactRedis(u), err)
	}
	return &redisFinder{r: r, c: c}, nil
}

func redactRedis(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unreadable URL)"
	}
	return p.Redacted()
}

type redisFinder struct {
	r Redis
	c *redis.Client
}

// maxRedisItems bounds what one read takes in.
const maxRedisItems = 200_000

// Close closes the client.
func (f *redisFinder) Close() error { return f.c.Close() }

// Find implements Finder.
func (f *redisFinder) Find(ctx context.Context, marker string) (Found, error) {
	items, err := f.items(ctx, marker)
	if err != nil {
		return Found{}, err
	}
	trusted := strings.Contains(f.r.Keys, "{{marker}}")
	var out []Row
	for _, it := range items {
		if trusted || strings.Contains(it.id, marker) || strings.Contains(string(it.raw), marker) {
			out = append(out, Row{ID: it.id})
		}
	}
	return Found{Rows: out}, nil
}

// Measure implements Measurer: every item's identity, or how many.
func (f *redisFinder) Measure(ctx context.Context, rows bool) (Reading, error) {
	if strings.Contains(f.r.Keys, "{{marker}}") {
		return Reading{}, errors.New("a count reads every key: keys takes no {{marker}} here")
	}
	items, err := f.items(ctx, "")
	if err != nil {
		return Reading{}, err
	}
	r := Reading{Rows: rows, Number: float64(len(items))}
	if rows {
		for _, it := range items {
			r.IDs = append(r.IDs, it.id)
		}
	}
	return r, nil
}

// items lists the keys, entries or fields, with their values.
func (f *redisFinder) items(ctx context.Context, marker string) ([]item, error) {
	switch {
	case f.r.Stream != "":
		return f.stream(ctx)
	case f.r.Hash != "":
		return f.hash(ctx)
	}
	return f.keys(ctx, strings.ReplaceAll(f.r.Keys, "{{marker}}", globEscape(marker)))
}

func (f *redisFinder) keys(ctx context.Context, pattern string) ([]item, error) {
	var out []item
	it := f.c.Scan(ctx, 0, pattern, 1000).Iterator()
	for it.Next(ctx) {
		k := it.Val()
		v, err := f.value(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", k, err)
		}
		out = append(out, item{id: k, raw: []byte(v)})
		if len(out) > maxRedisItems {
			return nil, fmt.Errorf("more than %d keys match %q: narrow the pattern", maxRedisItems, pattern)
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("SCAN %q: %w", pattern, err)
	}
	return out, nil
}

// value reads a key's value as text, whatever its type; a key gone
// since the SCAN has none.
func (f *redisFinder) value(ctx context.Context, k string) (string, error) {
	typ, err := f.c.Type(ctx, k).Result()
	if err != nil {
		return "", err
	}
	var v any
	switch typ {
	case "string":
		v, err = f.c.Get(ctx, k).Result()
	case "hash":
		v, err = f.c.HGetAll(ctx, k).Result()
	case "list":
		v, err = f.c.LRange(ctx, k, 0, -1).Result()
	case "set":
		v, err = f.c.SMembers(ctx, k).Result()
	case "zset":
		v, err = f.c.ZRange(ctx, k, 0, -1).Result()
	case "stream":
		v, err = f.c.XRange(ctx, k, "-", "+").Result()
	default:
		return "", nil // "none": deleted since the SCAN
	}
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return fmt.Sprint(v), err
}

func (f *redisFinder) stream(ctx context.Context) ([]item, error) {
	var out []item
	start := "-"
	for {
		msgs, err := f.c.XRangeN(ctx, f.r.Stream, start, "+", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("XRANGE %s: %w", f.r.Stream, err)
		}
		for _, m := range msgs {
			out = append(out, item{id: m.ID, raw: []byte(fmt.Sprint(m.Values))})
		}
		if len(msgs) < 1000 {
			return out, nil
		}
		if len(out) > maxRedisItems {
			return nil, fmt.Errorf("the stream %s holds more than %d entries", f.r.Stream, maxRedisItems)
		}
		start = "(" + msgs[len(msgs)-1].ID // exclusive: after the last one read
	}
}

func (f *redisFinder) hash(ctx context.Context) ([]item, error) {
	var out []item
	it := f.c.HScan(ctx, f.r.Hash, 0, "*", 1000).Iterator()
	for it.Next(ctx) {
		field := it.Val()
		if !it.Next(ctx) {
			break
		}
		out = append(out, item{id: field, raw: []byte(it.Val())})
		if len(out) > maxRedisItems {
			return nil, fmt.Errorf("the hash %s holds more than %d fields", f.r.Hash, maxRedisItems)
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("HSCAN %s: %w", f.r.Hash, err)
	}
	return out, nil
}

// globEscape escapes the characters a SCAN pattern gives a meaning to.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`, "]", `\]`).Replace(s)
}
