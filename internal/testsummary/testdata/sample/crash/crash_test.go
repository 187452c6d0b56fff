package crash

import "testing"

func TestBefore(t *testing.T) {}

func TestPanics(t *testing.T) { panic("a panic in a test") }
