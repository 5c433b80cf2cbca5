package redispay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemcheck/idemcheck/examples/internal/payapi"
)

// Profiles are the ways the service can keep its keys.
var Profiles = []string{"correct", "any-status", "short-lease"}

// Info describes a profile: the score it is built for and its flaw.
type Info struct {
	Score int
	Flaw  string
}

var infos = map[string]Info{
	"correct":     {3, ""},
	"any-status":  {1, "stores any status under the key: a 500 from a failing Redis (-ERR, -LOADING) is replayed after it recovered"},
	"short-lease": {0, "a key lease (250ms) shorter than a stalled request, and no check that the claim is still its own: the retry takes the key over and pays again"},
}

// Describe returns what profile is built for.
func Describe(profile string) (Info, bool) {
	i, ok := infos[profile]
	return i, ok
}

const (
	// Lease is how long short-lease holds a key in progress: longer than
	// a request takes, shorter than a Redis that stalls for a second and
	// than a client's patience with "in progress".
	Lease = 250 * time.Millisecond
	// claimLease is how long the other profiles hold a key in progress:
	// longer than any stall they are tested with.
	claimLease = 30 * time.Second
	// keep is how long a reply is kept under its key.
	keep = 24 * time.Hour
	// failureKeep is how long any-status keeps a failure under its key.
	failureKeep = 30 * time.Minute
	// stream is the stream of payments; seq numbers them.
	stream = "payments"
	seq    = "payments:seq"
)

// Main runs the service:
//
//	redispay --profile NAME [--redis redis://…] [--listen 127.0.0.1:0]
//
// It prints "listening on http://ADDR" once it accepts connections.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("redispay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "", "how keys are kept: "+strings.Join(Profiles, ", "))
	url := fs.String("redis", os.Getenv("REDIS_URL"), "the Redis URL ($REDIS_URL)")
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, ok := Describe(*profile); !ok || *url == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "redispay: --profile (one of %s) and --redis or $REDIS_URL are required\n", strings.Join(Profiles, ", "))
		return 2
	}
	if err := serve(ctx, *profile, *url, *listen, stdout); err != nil {
		fmt.Fprintf(stderr, "redispay: %v\n", err)
		return 1
	}
	return 0
}

type server struct {
	profile string
	rdb     *redis.Client
	// run names this run of the service: a claim made by another run was
	// left by a process that is gone.
	run    string
	claims atomic.Uint64
	// live are the claims of this run's requests still in progress. A
	// claim of this run that is not among them was left by a request that
	// ended without it: its SETNX, held up on the way (a stalled
	// connection), reached Redis after the request had given up and
	// released the claim it could not know it had made.
	liveMu sync.Mutex
	live   map[string]bool
}

// setLive marks claim in progress, or over.
func (s *server) setLive(claim string, on bool) {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if !on {
		delete(s.live, claim)
		return
	}
	if s.live == nil {
		s.live = map[string]bool{}
	}
	s.live[claim] = true
}

// isLive says whether claim is a request's of this run still in progress.
func (s *server) isLive(claim string) bool {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	return s.live[claim]
}

func serve(ctx context.Context, profile, url, listen string, stdout io.Writer) error {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	// One attempt per command: a command retried by the client after a
	// lost reply would be run twice.
	opts.MaxRetries = -1
	opts.Protocol = 2
	opts.DisableIdentity = true
	opts.PoolSize = 8
	opts.ReadTimeout = 30 * time.Second
	opts.WriteTimeout = 30 * time.Second
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = rdb.Ping(pctx).Err()
	cancel()
	if err != nil {
		return fmt.Errorf("reaching Redis: %w", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	s := &server{profile: profile, rdb: rdb, run: hex.EncodeToString(b)}
	return payapi.Serve(ctx, listen, stdout, s.pay)
}

type reply = payapi.Reply

func failure(err error) reply { return payapi.Failure("redis", err) }

func (s *server) pay(ctx context.Context, key string, p payapi.Payment) reply {
	k := "idem:" + key
	if s.profile == "short-lease" {
		return s.leased(ctx, k, p)
	}
	rp := s.claimed(ctx, k, p)
	if rp.Status >= 500 && s.profile == "any-status" {
		// The flaw: the failure is kept under the key, and replayed.
		_ = s.rdb.Set(context.WithoutCancel(ctx), k, done(rp, p.Amount), failureKeep).Err()
	}
	return rp
}

// A key holds "P|run|n|amount" while a request has claimed it, and
// "D|status|id|amount|error" once its reply is stored.

func done(rp reply, amount int64) string {
	return fmt.Sprintf("D|%d|%s|%d|%s", rp.Status, rp.ID, amount, rp.Err)
}

// stored replays what v, the value under a key, holds.
func stored(v string, amount int64) (rp reply, inProgress bool, run string) {
	f := strings.SplitN(v, "|", 5)
	switch {
	case len(f) == 4 && f[0] == "P":
		if f[3] != strconv.FormatInt(amount, 10) {
			return payapi.Mismatch, false, ""
		}
		return payapi.InProgress, true, f[1]
	case len(f) == 5 && f[0] == "D":
		if f[3] != strconv.FormatInt(amount, 10) {
			return payapi.Mismatch, false, ""
		}
		status, _ := strconv.Atoi(f[1])
		return reply{Status: status, ID: f[2], Effect: "noop", Err: f[4]}, false, ""
	}
	return reply{Status: http.StatusInternalServerError, Err: "an unreadable value under the key"}, false, ""
}

// payScript adds the payment and stores its reply under the key, if the
// key still holds the request's claim, as one step; it returns the
// payment's id, or "" when the claim is no longer the request's.
var payScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return '' end
local id = 'pay_' .. redis.call('INCR', KEYS[3])
redis.call('XADD', KEYS[2], '*', 'id', id, 'amount', ARGV[2], 'note', ARGV[3])
redis.call('SET', KEYS[1], 'D|201|' .. id .. '|' .. ARGV[2] .. '|', 'PX', ARGV[4])
return id`)

// swapScript replaces the key's value ARGV[1] with ARGV[2] (a lease of
// ARGV[3] ms), or deletes it when ARGV[2] is empty; it returns 1 if the
// key held ARGV[1].
var swapScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`)

// claimed claims the key (taking over a claim of a run that is gone, or
// one of this run's whose request is over), then pays with payScript; a
// claim whose payment failed is released.
func (s *server) claimed(ctx context.Context, k string, p payapi.Payment) reply {
	claim := fmt.Sprintf("P|%s|%d|%d", s.run, s.claims.Add(1), p.Amount)
	s.setLive(claim, true)
	defer s.setLive(claim, false)
	release := func() {
		_ = swapScript.Run(context.WithoutCancel(ctx), s.rdb, []string{k}, claim, "", 0).Err()
	}
	for attempt := 0; ; attempt++ {
		ok, err := s.rdb.SetNX(ctx, k, claim, claimLease).Result()
		if err != nil {
			release() // the claim may have been made
			return failure(err)
		}
		if ok {
			break
		}
		v, err := s.rdb.Get(ctx, k).Result()
		if errors.Is(err, redis.Nil) && attempt < 3 {
			continue // the key expired in between
		}
		if err != nil {
			return failure(err)
		}
		rp, inProgress, run := stored(v, p.Amount)
		if !inProgress || run == s.run && s.isLive(v) {
			return rp
		}
		// A claim left by a run of the service that is gone, or by a
		// request of this run that is over (see server.live): take it
		// over.
		took, err := swapScript.Run(ctx, s.rdb, []string{k}, v, claim, claimLease.Milliseconds()).Int()
		if err != nil {
			release()
			return failure(err)
		}
		if took == 1 {
			break
		}
		if attempt >= 3 {
			return payapi.InProgress
		}
	}
	id, err := payScript.Run(ctx, s.rdb, []string{k, stream, seq}, claim, p.Amount, p.Note, keep.Milliseconds()).Text()
	if err != nil {
		release() // a no-op if the payment was stored
		return failure(err)
	}
	if id == "" {
		return payapi.InProgress
	}
	return payapi.Created(id)
}

// leased claims the key for Lease, then pays and stores the reply in
// MULTI/EXEC, without checking that the claim is still its own.
func (s *server) leased(ctx context.Context, k string, p payapi.Payment) reply {
	claim := fmt.Sprintf("P|%s|%d|%d", s.run, s.claims.Add(1), p.Amount)
	ok, err := s.rdb.SetNX(ctx, k, claim, Lease).Result()
	if err != nil {
		return failure(err)
	}
	if !ok {
		v, err := s.rdb.Get(ctx, k).Result()
		if errors.Is(err, redis.Nil) {
			return payapi.InProgress
		}
		if err != nil {
			return failure(err)
		}
		rp, _, _ := stored(v, p.Amount)
		return rp
	}
	n, err := s.rdb.Incr(ctx, seq).Result()
	if err != nil {
		return failure(err)
	}
	id := fmt.Sprintf("pay_%d", n)
	_, err = s.rdb.TxPipelined(ctx, func(tx redis.Pipeliner) error {
		tx.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"id", id, "amount", p.Amount, "note", p.Note}})
		tx.Set(ctx, k, done(payapi.Created(id), p.Amount), keep)
		return nil
	})
	if err != nil {
		return failure(err)
	}
	return payapi.Created(id)
}
