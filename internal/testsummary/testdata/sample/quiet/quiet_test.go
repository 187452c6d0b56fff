package quiet

import "testing"

func TestOne(t *testing.T) {}

func TestTwo(t *testing.T) { t.Skip("no Chromium") }
