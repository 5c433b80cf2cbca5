package kit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/brokers"
	"github.com/idemcheck/idemcheck/brokers/internal/armed"
	"github.com/idemcheck/idemcheck/brokers/internal/reorder"
)

// Spec describes a broker to its Core.
type Spec struct {
	// Name is the broker's name ("nats").
	Name string
	// Capabilities are what it supports.
	Capabilities brokers.Capabilities
	// Unsupported says, per fault kind it does not support, why not.
	Unsupported map[brokers.FaultKind]string
	// NoDedup says why a de-duplicated publish is unsupported, when the
	// broker has no DedupHeader.
	NoDedup string
}

// Core is embedded by every broker. Its exported methods implement part
// of brokers.Broker.
type Core struct {
	spec  Spec
	opts  brokers.Options
	log   brokers.Log
	armed armed.Set
	pub   *reorder.Publisher

	life   context.Context
	cancel context.CancelFunc
	holds  sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Init sets the core up: publish stores one event on the broker.
func (c *Core) Init(spec Spec, opts brokers.Options, publish reorder.PublishFunc) {
	c.spec, c.opts = spec, opts
	c.life, c.cancel = context.WithCancel(context.Background())
	c.pub = reorder.New(publish, &c.log)
}

// Options returns the broker's options, defaults applied.
func (c *Core) Options() brokers.Options { return c.opts }

// Log returns the broker's observations.
func (c *Core) Log() *brokers.Log { return &c.log }

// Capabilities returns what the broker supports.
func (c *Core) Capabilities() brokers.Capabilities { return c.spec.Capabilities }

// Publish stores ev once; with the broker's de-duplication header when it
// has one.
func (c *Core) Publish(ctx context.Context, ev brokers.Event) (brokers.Receipt, error) {
	return c.pub.Publish(ctx, ev, c.spec.Capabilities.DedupHeader != "")
}

// PublishAgain stores ev again, as a producer's retry: with dedup, with
// the broker's de-duplication header, which a broker without one cannot
// do.
func (c *Core) PublishAgain(ctx context.Context, ev brokers.Event, dedup bool) (brokers.Receipt, error) {
	if dedup && c.spec.Capabilities.DedupHeader == "" {
		return brokers.Receipt{}, fmt.Errorf("%s: publish with a de-duplication header: %w (%s)", c.spec.Name, brokers.ErrUnsupported, c.spec.NoDedup)
	}
	return c.pub.Publish(ctx, ev, dedup)
}

// Arm validates f and arms it: Reorder on the publisher, the other
// supported kinds in the armed set, where the broker's protocol code takes
// them.
func (c *Core) Arm(f brokers.Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if !c.spec.Capabilities.Supports(f.Kind) {
		return fmt.Errorf("%s: fault %s: %w (%s)", c.spec.Name, f.Kind, brokers.ErrUnsupported, c.spec.Unsupported[f.Kind])
	}
	if f.Kind == brokers.Reorder {
		c.pub.Arm(f)
		return nil
	}
	c.armed.Arm(f)
	return nil
}

// Take removes and returns the fault of kind k armed for event id.
func (c *Core) Take(k brokers.FaultKind, id string) (brokers.Fault, bool) {
	return c.armed.Take(k, id)
}

// Armed reports whether a fault of kind k is armed for event id.
func (c *Core) Armed(k brokers.FaultKind, id string) bool { return c.armed.Armed(k, id) }

// Record appends o to the log.
func (c *Core) Record(o brokers.Observation) brokers.Observation { return c.log.Record(o) }

// Hold runs release in a goroutine once the held ack's event has been
// delivered again after it was held, or once the fault's hold has passed;
// not at all if the broker closes first.
func (c *Core) Hold(held brokers.Observation, f brokers.Fault, release func()) {
	c.holds.Add(1)
	go func() {
		defer c.holds.Done()
		ctx, cancel := context.WithTimeout(c.life, f.HoldOrDefault())
		defer cancel()
		_ = c.log.WaitFunc(ctx, func(obs []brokers.Observation) bool {
			for _, o := range obs[held.Seq:] {
				if o.Kind == brokers.Delivered && o.EventID == held.EventID {
					return true
				}
			}
			return false
		}, nil)
		if c.life.Err() == nil {
			release()
		}
	}()
}

// Life is done once the broker stops.
func (c *Core) Life() context.Context { return c.life }

// Stop refuses further publishes, drops held events, and ends the holds'
// waits; WaitHolds then waits for them. A broker calls Stop first in its
// Close, and WaitHolds once its proxy has stopped (no new holds).
func (c *Core) Stop() {
	c.cancel()
	c.pub.Close()
}

// WaitHolds waits for the goroutines started by Hold.
func (c *Core) WaitHolds() { c.holds.Wait() }

// Placeholders returns the broker's placeholder values, with url as
// {{broker.url}}.
func (c *Core) Placeholders(url string) map[string]string {
	return map[string]string{
		brokers.PlaceholderURL:     url,
		brokers.PlaceholderKind:    c.spec.Name,
		brokers.PlaceholderTopic:   c.opts.Topic,
		brokers.PlaceholderStream:  c.opts.Topic,
		brokers.PlaceholderGroup:   c.opts.Group,
		brokers.PlaceholderAckWait: c.opts.AckWait.String(),
	}
}

// Timeout returns how long is left before ctx's deadline, or fallback.
func Timeout(ctx context.Context, fallback time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
	}
	return fallback
}

// Shutdown closes the broker once; later calls return the first call's
// result. It stops the core (no more publishes, holds ended), runs
// stopProxy (so that no new hold starts), waits for the holds, runs each
// of stops in order (clients, then servers), and removes dir, if any.
func (c *Core) Shutdown(stopProxy func() error, dir string, stops ...func() error) error {
	c.closeOnce.Do(func() {
		c.Stop()
		errs := []error{stopProxy()}
		c.WaitHolds()
		for _, stop := range stops {
			errs = append(errs, stop())
		}
		if dir != "" {
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, fmt.Errorf("%s: remove the temporary directory: %w", c.spec.Name, err))
			}
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
