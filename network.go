package rampway

import (
	"context"
	"math/big"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Network is an EVM chain rampway works on, named as the API names it (networkName,
// crypto_network).
type Network struct {
	Name    string
	ChainID *big.Int
	// Livemode says the network moves real money (a mainnet); false for a test network (a
	// testnet, a dev chain). Only orders of its mode pay or execute on it.
	Livemode bool
	// RPCURLs are JSON-RPC endpoints; the first is used, the others are for failover.
	RPCURLs []string
	// RPCTimeout bounds one request to one node (0: the transport's default, 10 s).
	RPCTimeout time.Duration
	// Confirmations is how many blocks deep a deposit must be before it is credited.
	Confirmations int
	// ExplorerURL, when set, links transactions: ExplorerURL + "/tx/" + hash.
	ExplorerURL string
	Native      Asset
	Tokens      []Asset
}

// Asset is a coin or token that can be paid or sent on a network.
type Asset struct {
	Symbol  string
	Network string
	// Contract is the token contract; the zero address for the native coin.
	Contract common.Address
	Decimals uint8
	// Min and Max bound one payment, in base units; nil means no bound.
	Min, Max *big.Int
	// ApproveReset is set for a token whose approve refuses to change a non-zero allowance
	// into another non-zero one (USDT on Ethereum): the hot wallet approves 0 first.
	ApproveReset bool
}

// IsNative reports whether the asset is the network's native coin.
func (a Asset) IsNative() bool { return a.Contract == (common.Address{}) }

// Asset returns the network's asset with that symbol (native or token).
func (n *Network) Asset(symbol string) (Asset, bool) {
	if n.Native.Symbol == symbol {
		return n.Native, true
	}
	for _, t := range n.Tokens {
		if t.Symbol == symbol {
			return t, true
		}
	}
	return Asset{}, false
}

// Assets returns the native coin followed by the tokens.
func (n *Network) Assets() []Asset { return append([]Asset{n.Native}, n.Tokens...) }

// ContractFunctionStatus says whether orders may use a registered function.
type ContractFunctionStatus string

// Contract function statuses.
const (
	ContractFunctionActive   ContractFunctionStatus = "active"
	ContractFunctionDisabled ContractFunctionStatus = "disabled"
)

// PrefixContractFunction starts smart-contract function ids.
const PrefixContractFunction = "scf"

// ContractFunction is a smart-contract function a merchant registered for rampway to execute:
// the smartContractFunctionId of the API.
type ContractFunction struct {
	ID         string
	MerchantID string
	Network    string
	Contract   common.Address
	// ABI is the function's ABI fragment (one JSON object), as registered.
	ABI string
	// Signature is the canonical signature, e.g. "mint(address,uint256)".
	Signature string
	// DefaultGasLimit is used when an order gives no customGasLimit.
	DefaultGasLimit uint64
	// PayableSymbol is the asset paid to the function: the native symbol (sent as value), a
	// token symbol (approved, then pulled by the function), or "" for none.
	PayableSymbol string
	// DisplayName and ImageURL are what the hosted checkout page shows the buyer is buying
	// ("" for none: the page names the function instead, and shows no image).
	DisplayName string
	ImageURL    string
	Status      ContractFunctionStatus
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// ContractFunctionStore keeps registered smart-contract functions.
type ContractFunctionStore interface {
	// CreateContractFunction stores a new function. ENOTFOUND if the merchant does not exist.
	CreateContractFunction(ctx context.Context, f *ContractFunction) error
	// ContractFunction returns a function by id. ENOTFOUND.
	ContractFunction(ctx context.Context, id string) (*ContractFunction, error)
	// ContractFunctions lists a merchant's functions, oldest first.
	ContractFunctions(ctx context.Context, merchantID string) ([]*ContractFunction, error)
	// SetContractFunctionStatus changes a merchant's function's status and returns it. ENOTFOUND.
	SetContractFunctionStatus(ctx context.Context, merchantID, id string, s ContractFunctionStatus, at time.Time) (*ContractFunction, error)
	// SetContractFunctionDisplay replaces a merchant's function's display name and image URL
	// (what the checkout page shows; "" for none) and returns it. ENOTFOUND.
	SetContractFunctionDisplay(ctx context.Context, merchantID, id, displayName, imageURL string, at time.Time) (*ContractFunction, error)
}

// IsLoopbackHost reports whether a URL's host (without port) names this machine: localhost or
// a loopback address. An RPC endpoint there may be plain http, and is not asked for gzip.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
