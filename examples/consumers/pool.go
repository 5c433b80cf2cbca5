package consumers

import (
	"context"
	"sync"
)

// pool runs deliveries in goroutines, at most n at a time.
type pool struct {
	sem chan struct{}
	wg  sync.WaitGroup
}

func newPool(n int) *pool { return &pool{sem: make(chan struct{}, n)} }

// run runs fn in a goroutine once a slot is free; it returns false, and
// runs nothing, if ctx ends first.
func (p *pool) run(ctx context.Context, fn func()) bool {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() { <-p.sem }()
		fn()
	}()
	return true
}

// wait waits for every goroutine started by run.
func (p *pool) wait() { p.wg.Wait() }
