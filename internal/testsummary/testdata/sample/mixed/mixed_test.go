package mixed

import "testing"

func TestPass(t *testing.T) {}

func TestFail(t *testing.T) {
	t.Log("the details")
	t.Error("boom")
}

func TestNeedsPostgres(t *testing.T) {
	t.Log("looking for a server")
	t.Skip("RAMPWAY_TEST_POSTGRES_DSN not set")
}

func TestNeedsPostgresToo(t *testing.T) { t.Skip("RAMPWAY_TEST_POSTGRES_DSN not set") }

func TestSkipNow(t *testing.T) { t.SkipNow() }

func TestSubtests(t *testing.T) {
	t.Run("passes", func(t *testing.T) {})
	t.Run("needs chromium", func(t *testing.T) { t.Skip("no Chromium") })
	t.Run("fails", func(t *testing.T) { t.Fatal("sub boom") })
}
