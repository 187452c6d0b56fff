package devchain

import "context"

// Automining reports whether c runs its automining loop: Start starts it only when
// Config.BlockTime is not negative, and then nothing but Mine makes a block. Tests check that
// structurally instead of waiting for a block that must not come.
func (c *Chain) Automining() bool { return c.stop != nil }

// StartV1 starts a new chain as the versions before the fiat feeds did: DemoToken, PriceFeed
// (ETH / USD), Multicall3 and DemoNFT at the deployer's nonces 0..3, the token mints from
// nonce 4, no EUR / USD or GBP / USD feed (their Contracts fields are zero). Tests make the
// data directory of such a version with it, then Start this version on it.
func StartV1(ctx context.Context, cfg Config) (*Chain, error) { return start(ctx, cfg, layoutV1) }
