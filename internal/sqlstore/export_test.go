package sqlstore

import "time"

// Waiting is how many transactions wait for the one writer.
func (s *Store) Waiting() int32 { return s.waiting.Load() }

// SetYield sets how long background work yields at most, and a function called when it starts
// to yield.
func (s *Store) SetYield(d time.Duration, yielding func()) { s.yieldFor, s.yielding = d, yielding }
