package devchain

// Automining reports whether c runs its automining loop: Start starts it only when
// Config.BlockTime is not negative, and then nothing but Mine makes a block. Tests check that
// structurally instead of waiting for a block that must not come.
func (c *Chain) Automining() bool { return c.stop != nil }
