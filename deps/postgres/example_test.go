package postgres_test

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/deps"
	"github.com/idemcheck/idemcheck/deps/postgres"
	"github.com/idemcheck/idemcheck/internal/pgserver"
)

// How a run uses the proxy: the database is started (or given), the proxy
// put in front of it, and the target handed the proxy's URL; for one
// intent, a rule is armed and the run waits on the proxy's events.
func Example() {
	ctx := context.Background()
	db, err := pgserver.Start(ctx) // or the target's own database
	if err != nil {
		panic(err)
	}
	defer db.Stop()
	p, err := postgres.Start(ctx, postgres.Config{Upstream: fmt.Sprintf("127.0.0.1:%d", db.Port)})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	targetURL, _ := deps.ReplaceHost(db.DSN("postgres"), p.Addr()) // {{deps.NAME.url}}
	_ = targetURL                                                  // start the target with it

	// An intent whose commit is answered but whose answer is lost.
	intent := "idem-0123456789abcdef"
	armed, _ := p.Control().Arm(deps.Rule{Intent: intent, Action: deps.ResetAfterCommit})
	// … the target is called with the intent's marker …
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if ev, err := p.Control().Events().WaitFor(wait, deps.EventCommitReplied, intent); err == nil {
		fmt.Println(ev.Committed, ev.Withheld, armed.Count())
	}
	p.Control().Disarm(intent)
	p.Control().Events().Forget(intent)
}
