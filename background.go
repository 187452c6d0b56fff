package rampway

import "context"

type backgroundKey struct{}

// Background marks ctx as work that can wait for requests: a store with one writer (SQLite)
// gives the writes that requests are waiting on their turn first, for a bounded time, so that
// a burst of such work (the expiry of 100,000 orders at once) does not slow order creation.
// Work that money waits on (the watcher, the executor) is never marked.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

// IsBackground reports whether ctx was marked by Background.
func IsBackground(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b
}
