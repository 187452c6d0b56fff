// Package loop runs the background workers' steps.
package loop

import (
	"context"
	"log/slog"
	"time"
)

// Every calls step at once and then every interval until ctx ends, logging its errors as
// what. The background workers (expiry, watchers, executors, sweepers) all run this way.
func Every(ctx context.Context, interval time.Duration, log *slog.Logger, what string, step func(context.Context) error) {
	EveryOrWoken(ctx, interval, nil, log, what, step) // a nil channel never wakes
}

// EveryOrWoken is Every, also stepping at once when wake receives (a new piece of work told by
// whoever made it), so that the work does not wait for the next interval.
func EveryOrWoken(ctx context.Context, interval time.Duration, wake <-chan struct{}, log *slog.Logger, what string, step func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := step(ctx); err != nil && ctx.Err() == nil {
			log.Error(what, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
	}
}
