package devchain

import (
	"github.com/rampway/rampway"
)

// Network describes the running chain as a rampway network called name: its native coin
// (ETH, 18 decimals) and the demo token (DUSD, 6 decimals), with confirmations 1 and no
// amount bounds.
func (c *Chain) Network(name string) rampway.Network {
	return rampway.Network{
		Name:          name,
		ChainID:       c.ChainID(),
		RPCURLs:       []string{c.RPCURL()},
		Confirmations: 1,
		Native:        rampway.Asset{Symbol: NativeSymbol, Network: name, Decimals: 18},
		Tokens: []rampway.Asset{
			{Symbol: TokenSymbol, Network: name, Contract: c.Contracts().Token, Decimals: TokenDecimals},
		},
	}
}
