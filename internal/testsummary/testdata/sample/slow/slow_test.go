package slow

import (
	"testing"
	"time"
)

func TestQuick(t *testing.T) {}

func TestHangs(t *testing.T) {
	t.Log("waiting for something that never comes")
	time.Sleep(time.Hour)
}
