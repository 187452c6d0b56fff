package chainwork_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/internal/devtest"
)

// A chain whose head is below the block the database has recorded (a node that lost blocks)
// is not waited for in silence: once the grace is over the watcher logs an error naming the
// network, the head and the recorded block, and Ping (for /readyz) fails with the same; the
// error is not repeated at every step, and when the head passes the recorded block again,
// both end.
func TestWatcherReportsAChainBehindItsCursor(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	head, err := e.client.BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recorded := head + 3
	if err := e.store.SetWatchCursor(t.Context(), "devnet", recorded, common.HexToHash("0x1234"), time.Now()); err != nil {
		t.Fatal(err)
	}
	var logs devtest.LockedBuffer
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.NewTextHandler(&logs, nil)), now)
	step := stepper(t, w)
	errorLines := func() int { return strings.Count(logs.String(), "level=ERROR") }

	step()
	if err := w.Ping(t.Context()); err != nil || errorLines() != 0 {
		t.Fatalf("behind for less than the grace: Ping %v, log:\n%s", err, logs.String())
	}
	advance(chainwork.DefaultBehindGrace)
	step()
	err = w.Ping(t.Context())
	want := fmt.Sprintf("Network devnet: the chain's head is block %d, behind block %d that rampway has recorded", head, recorded)
	if rampway.ErrorCode(err) != rampway.EUNAVAILABLE || !strings.Contains(rampway.ErrorMessage(err), want) {
		t.Fatalf("Ping = %v, want an unavailable error saying %q", err, want)
	}
	line := fmt.Sprintf("network=devnet head=%d recorded=%d", head, recorded)
	if errorLines() != 1 || !strings.Contains(logs.String(), "chain head is behind the block rampway has recorded") || !strings.Contains(logs.String(), line) {
		t.Fatalf("want one error line with %q, log:\n%s", line, logs.String())
	}
	advance(time.Minute)
	step()
	if errorLines() != 1 {
		t.Fatalf("the error is repeated at every step:\n%s", logs.String())
	}

	// The chain grows past the recorded block (the watcher then finds the block it recorded
	// gone, and rescans): ready again.
	for range 4 {
		e.mine()
	}
	step()
	if err := w.Ping(t.Context()); err != nil {
		t.Fatalf("caught up, Ping = %v", err)
	}
	if !strings.Contains(logs.String(), "chain head caught up") {
		t.Fatalf("no word of the catch-up:\n%s", logs.String())
	}

	// Without a grace (the dev chain): at the first step that sees it.
	if err := e.store.SetWatchCursor(t.Context(), "devnet", head+100, common.HexToHash("0x1234"), time.Now()); err != nil {
		t.Fatal(err)
	}
	w = mustWatcher(t, chainwork.WatcherConfig{CannotLag: true}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	if err := w.Ping(t.Context()); err != nil {
		t.Fatalf("Ping before any step = %v", err)
	}
	stepper(t, w)()
	if err := w.Ping(t.Context()); rampway.ErrorCode(err) != rampway.EUNAVAILABLE || !strings.Contains(rampway.ErrorMessage(err), fmt.Sprintf("behind block %d", head+100)) {
		t.Fatalf("no grace: Ping = %v", err)
	}
}
