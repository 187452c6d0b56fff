package merchant

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// DepositTransferGas is the gas limit of the simulated transfer that tests a deposit address
// holding a contract: the limit area C's transfers to a contract are sent with (checkout's
// contract and token transfer gas), so that an address accepted here can be paid there.
const DepositTransferGas = 100_000

// DepositChains is what the deposit address checks ask of the networks.
type DepositChains interface {
	Network(name string) (*rampway.Network, bool)
	// List returns the configured networks (named in messages).
	List() []*rampway.Network
	HasCode(ctx context.Context, network string, addr common.Address) (bool, error)
	// Simulate runs calls in order from `from` on the network's latest state, sending nothing,
	// and returns the reason the first failing call fails ("" when none does), or
	// rampway.ErrInsufficientFunds when from cannot pay (chain.QuoteClient's Simulate).
	Simulate(ctx context.Context, network string, from common.Address, calls []rampway.Call) (string, error)
}

// DepositAddressStore is what the deposit addresses are kept in.
type DepositAddressStore interface {
	rampway.MerchantDepositAddressStore
	Merchant(ctx context.Context, id string) (*rampway.Merchant, error)
}

// DepositAddresses onboards merchants' deposit addresses, one per (network, asset): where
// area C's orders send the asset the user bought.
type DepositAddresses struct {
	store     DepositAddressStore
	chains    DepositChains
	hotWallet common.Address
	now       func() time.Time
	// cache keeps the addresses Payout read (PayoutCacheTTL), by merchant, network and symbol.
	cache *ttlCache[payoutKey, *rampway.MerchantDepositAddress]
}

type payoutKey struct{ merchant, network, symbol string }

// forget drops what the cache holds for the merchant's address of an asset.
func (d *DepositAddresses) forget(merchantID, network, symbol string) {
	if d.cache != nil {
		d.cache.Remove(payoutKey{merchantID, network, symbol})
	}
}

// Payout returns where area C delivers the asset to the merchant: its deposit address for
// (network, symbol), through the cache of PayoutCacheTTL. ENOTFOUND, unwrapped, when there is
// none. It does not check that the merchant exists (the caller authenticated it).
func (d *DepositAddresses) Payout(ctx context.Context, merchantID, network, symbol string) (*rampway.MerchantDepositAddress, error) {
	k := payoutKey{merchantID, network, symbol}
	if d.cache != nil {
		if a, ok := d.cache.Get(k); ok {
			return a, nil
		}
	}
	a, err := d.store.MerchantDepositAddress(ctx, merchantID, network, symbol)
	if err == nil && d.cache != nil {
		d.cache.Add(k, a)
	}
	return a, err
}

// DepositAddressesConfig tunes the deposit address use cases.
type DepositAddressesConfig struct {
	// HotWallet is the account area C sends from: a contract's acceptance of a transfer is
	// simulated from it.
	HotWallet common.Address
	// PayoutCacheTTL, when positive, makes Payout keep each address it reads that long (on
	// the clock given to NewDepositAddresses), so that a burst of area C orders does not read
	// it every time. A change made through these DepositAddresses applies at once; one made
	// by another process (the admin CLI, another instance) within it: an order created in
	// that window sends to the address it was created with, as one created just before the
	// change does. An address not found is never kept: one just onboarded is found at once.
	PayoutCacheTTL time.Duration
}

// NewDepositAddresses returns the deposit address use cases. now is the clock (time.Now when
// nil).
func NewDepositAddresses(cfg DepositAddressesConfig, store DepositAddressStore, chains DepositChains, now func() time.Time) *DepositAddresses {
	if now == nil {
		now = time.Now
	}
	d := &DepositAddresses{store: store, chains: chains, hotWallet: cfg.HotWallet, now: now}
	if cfg.PayoutCacheTTL > 0 {
		d.cache = newTTLCache[payoutKey, *rampway.MerchantDepositAddress](10_000, cfg.PayoutCacheTTL, now)
	}
	return d
}

// DepositAddressParams are a deposit address to set.
type DepositAddressParams struct {
	Network string
	// Symbol is the asset's: the network's native coin or one of its tokens.
	Symbol string
	// Address is 0x and 40 hex digits, all lower or upper case, or EIP-55 mixed case.
	Address string
}

// Set checks and stores the merchant's deposit address for an asset on a network, replacing
// the one there was (whose created_at stays). The address must be an account other than the
// zero address, the hot wallet and the asset's own token contract; when it holds a contract,
// a plain transfer of the asset to it (the native coin: 1 wei sent with no data; a token: its
// transfer(address,uint256) of 1 base unit) must succeed in a simulation from the hot wallet.
// EINVALID names the field at fault (network, symbol, address); ENOTFOUND for an unknown
// merchant; EUNAVAILABLE when the network cannot be asked, or the hot wallet cannot make the
// test transfer (it holds none of the asset).
func (d *DepositAddresses) Set(ctx context.Context, merchantID string, p DepositAddressParams) (*rampway.MerchantDepositAddress, error) {
	if err := d.merchant(ctx, merchantID); err != nil {
		return nil, err
	}
	net, asset, err := d.asset(p.Network, p.Symbol)
	if err != nil {
		return nil, err
	}
	if p.Address == "" {
		return nil, rampway.FieldErrorf("address", "address is required")
	}
	addr, err := rampway.ParseAddress("address", p.Address)
	if err != nil {
		return nil, err
	}
	switch {
	case addr == (common.Address{}):
		return nil, rampway.FieldErrorf("address", "address must not be the zero address: what is sent there is lost")
	case addr == d.hotWallet:
		return nil, rampway.FieldErrorf("address", "address %s is the service's hot wallet, which sends the deposits", addr.Hex())
	case !asset.IsNative() && addr == asset.Contract:
		return nil, rampway.FieldErrorf("address", "address %s is the %s token's own contract: tokens sent there are lost", addr.Hex(), asset.Symbol)
	}
	if err := CheckReceives(ctx, d.chains, d.hotWallet, net, asset, addr, "deposits"); err != nil {
		return nil, err
	}
	now := d.now().UTC().Truncate(time.Microsecond)
	a := &rampway.MerchantDepositAddress{MerchantID: merchantID, Network: net.Name, Symbol: asset.Symbol, Address: addr, CreatedAt: now, UpdatedAt: now}
	err = d.store.SetMerchantDepositAddress(ctx, a)
	d.forget(merchantID, net.Name, asset.Symbol) // written or not: the next read sees the store
	if err != nil {
		return nil, fmt.Errorf("set deposit address: %w", err)
	}
	return a, nil
}

// asset returns the configured network and its asset, or EINVALID naming network or symbol.
func (d *DepositAddresses) asset(network, symbol string) (*rampway.Network, rampway.Asset, error) {
	if network == "" {
		return nil, rampway.Asset{}, rampway.FieldErrorf("network", "network is required")
	}
	net, ok := d.chains.Network(network)
	if !ok {
		var names []string
		for _, n := range d.chains.List() {
			names = append(names, n.Name)
		}
		if len(names) == 0 {
			names = []string{"none"}
		}
		return nil, rampway.Asset{}, rampway.FieldErrorf("network", "network %q is not configured (configured: %s)",
			rampway.Echo(network), strings.Join(names, ", "))
	}
	if symbol == "" {
		return nil, rampway.Asset{}, rampway.FieldErrorf("symbol", "symbol is required")
	}
	asset, ok := net.Asset(symbol)
	if !ok {
		var symbols []string
		for _, a := range net.Assets() {
			symbols = append(symbols, a.Symbol)
		}
		return nil, rampway.Asset{}, rampway.FieldErrorf("symbol", "symbol %q is not an asset of network %s (%s)",
			rampway.Echo(symbol), net.Name, strings.Join(symbols, ", "))
	}
	return net, asset, nil
}

// CheckReceives checks that addr, the field "address" of a request, takes a plain transfer of
// asset from the hot wallet (what is sent there: "deposits", "the refund") when it holds a
// contract: a simulation from the hot wallet of 1 wei sent with no data, or of the token's
// transfer of 1 base unit. EINVALID names the field when the contract refuses it;
// EUNAVAILABLE when the network cannot be asked or the hot wallet cannot make the test.
func CheckReceives(ctx context.Context, chains DepositChains, hotWallet common.Address, net *rampway.Network, asset rampway.Asset, addr common.Address, what string) error {
	d := &DepositAddresses{chains: chains, hotWallet: hotWallet}
	has, err := d.chains.HasCode(ctx, net.Name, addr)
	if err != nil {
		return unreachable(net.Name, err)
	}
	if !has {
		return nil
	}
	one := big.NewInt(1)
	to := func(a common.Address) rampway.Call {
		if asset.IsNative() {
			return rampway.Call{To: a, Value: one, Gas: DepositTransferGas}
		}
		return rampway.Call{To: asset.Contract, Value: new(big.Int), Data: rampway.ERC20Call(rampway.SelTransfer, a, one), Gas: DepositTransferGas}
	}
	reason, err := d.chains.Simulate(ctx, net.Name, d.hotWallet, []rampway.Call{to(addr)})
	switch {
	case errors.Is(err, rampway.ErrInsufficientFunds):
		return d.cannotTest(net, asset, addr, "it holds none")
	case err != nil:
		return unreachable(net.Name, err)
	case reason == "":
		return nil
	}
	// Refused: by the contract, or by the token because the hot wallet cannot send it. The same
	// transfer to the hot wallet itself (an account, which takes anything) tells them apart.
	own, err := d.chains.Simulate(ctx, net.Name, d.hotWallet, []rampway.Call{to(d.hotWallet)})
	switch {
	case errors.Is(err, rampway.ErrInsufficientFunds):
		return d.cannotTest(net, asset, addr, "it holds none")
	case err != nil:
		return unreachable(net.Name, err)
	case own != "":
		return d.cannotTest(net, asset, addr, own)
	}
	test := "1 wei of " + asset.Symbol + " sent with no data"
	if !asset.IsNative() {
		test = "a transfer of 1 base unit of " + asset.Symbol
	}
	return rampway.FieldErrorf("address", "address %s is a contract that refuses a plain transfer of %s on %s (%s, simulated: %s): %s sent there would fail",
		addr.Hex(), asset.Symbol, net.Name, test, reason, what)
}

// cannotTest is the error of a contract address whose test transfer the hot wallet cannot
// make (why says why): the check is the service's to retry once the hot wallet holds the asset.
func (d *DepositAddresses) cannotTest(net *rampway.Network, asset rampway.Asset, addr common.Address, why string) error {
	return rampway.Errorf(rampway.EUNAVAILABLE, "address %s is a contract, which is accepted once a transfer of %s to it succeeds in a simulation from the hot wallet %s; "+
		"the hot wallet cannot send %s on %s (%s): fund it and try again", addr.Hex(), asset.Symbol, d.hotWallet.Hex(), asset.Symbol, net.Name, why)
}

func unreachable(network string, err error) error {
	return &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("network %s cannot be reached to check the address", network), Err: err}
}

// List returns the merchant's deposit addresses by network, then symbol. ENOTFOUND for an
// unknown merchant.
func (d *DepositAddresses) List(ctx context.Context, merchantID string) ([]*rampway.MerchantDepositAddress, error) {
	if err := d.merchant(ctx, merchantID); err != nil {
		return nil, err
	}
	return d.store.MerchantDepositAddresses(ctx, merchantID)
}

// Networks are the configured networks, whose assets a deposit address may be set for (the
// dashboard's choices).
func (d *DepositAddresses) Networks() []*rampway.Network { return d.chains.List() }

// Get returns the merchant's deposit address for an asset on a network. ENOTFOUND.
func (d *DepositAddresses) Get(ctx context.Context, merchantID, network, symbol string) (*rampway.MerchantDepositAddress, error) {
	if err := d.merchant(ctx, merchantID); err != nil {
		return nil, err
	}
	a, err := d.store.MerchantDepositAddress(ctx, merchantID, network, symbol)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, depositAddressNotFound(network, symbol)
	}
	return a, err
}

// Delete removes the merchant's deposit address for an asset on a network: area C's new
// orders for that asset are refused until another is set. ENOTFOUND.
func (d *DepositAddresses) Delete(ctx context.Context, merchantID, network, symbol string) error {
	if err := d.merchant(ctx, merchantID); err != nil {
		return err
	}
	err := d.store.DeleteMerchantDepositAddress(ctx, merchantID, network, symbol)
	d.forget(merchantID, network, symbol)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return depositAddressNotFound(network, symbol)
	}
	return err
}

func depositAddressNotFound(network, symbol string) error {
	return rampway.Errorf(rampway.ENOTFOUND, "Deposit address for %q on network %q not found", rampway.Echo(symbol), rampway.Echo(network))
}

// merchant checks that the merchant exists. ENOTFOUND.
func (d *DepositAddresses) merchant(ctx context.Context, id string) error {
	notFound := rampway.Errorf(rampway.ENOTFOUND, "Merchant %q not found", rampway.Echo(id))
	if !rampway.ValidID(rampway.PrefixMerchant, id) {
		return notFound
	}
	_, err := d.store.Merchant(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return notFound
	}
	return err
}
