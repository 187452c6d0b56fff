package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/rampway/rampway"
)

// Gas limit bounds for registered functions: a plain transfer's cost up to a typical block's.
const (
	MinGasLimit = 21_000
	MaxGasLimit = 30_000_000
)

// Chains is what the registry asks of the networks.
type Chains interface {
	Network(name string) (*rampway.Network, bool)
	HasCode(ctx context.Context, network string, addr common.Address) (bool, error)
}

// Store is what the registry keeps functions in.
type Store interface {
	rampway.ContractFunctionStore
	Merchant(ctx context.Context, id string) (*rampway.Merchant, error)
}

// Registry registers merchants' smart-contract functions, checked against the chain, and
// hands them out for orders.
type Registry struct {
	store  Store
	chains Chains
	now    func() time.Time
	// parsed caches parsed functions by id: a registered fragment never changes, and parsing
	// one costs ~90 us, more than validating and encoding a call.
	parsed sync.Map // id -> *Function
	// active keeps the functions Active read, by id (nil: Active reads every time).
	active *expirable.LRU[string, *rampway.ContractFunction]
	// devMode lets a function's image_url be http as well as https.
	devMode bool
}

// RegistryConfig tunes a Registry.
type RegistryConfig struct {
	// DevMode takes http image URLs as well as https ones, as dev mode does (the dev server
	// serves its demo images over http).
	DevMode bool
	// ActiveCacheTTL, when positive, makes Active keep each function it reads that long, so
	// that a burst of orders does not read it every time. Disable through the Registry applies
	// at once; a change made by another process (the admin CLI, another instance) within it.
	ActiveCacheTTL time.Duration
}

// NewRegistry returns a Registry. now is the clock (time.Now when nil).
func NewRegistry(cfg RegistryConfig, store Store, chains Chains, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	r := &Registry{store: store, chains: chains, now: now, devMode: cfg.DevMode}
	if cfg.ActiveCacheTTL > 0 {
		r.active = expirable.NewLRU[string, *rampway.ContractFunction](10_000, nil, cfg.ActiveCacheTTL)
	}
	return r
}

// RegisterParams describe a function to register.
type RegisterParams struct {
	Network         string
	ContractAddress string
	// ABI is the function's fragment: a JSON object, a one-element array, or a JSON string
	// holding either.
	ABI             json.RawMessage
	DefaultGasLimit uint64
	// PayableSymbol is the asset paid to the function: the network's native symbol (the
	// function must be payable), a token symbol (the function pulls it after an approve, so
	// it must not be payable), or "" for none.
	PayableSymbol string
	// DisplayName is what the hosted checkout page says the buyer is buying ("Demo NFT"): at
	// most rampway.MaxDisplayNameLen characters; "" names the function by its ABI name.
	DisplayName string
	// ImageURL is the picture of it on the page: "" (none), or an absolute https URL (http too
	// in dev mode), rampway.CheckImageURL.
	ImageURL string
}

// Register checks and stores a function for the merchant. EINVALID names the field at fault;
// ENOTFOUND for an unknown merchant; EUNAVAILABLE when the network cannot be asked.
func (r *Registry) Register(ctx context.Context, merchantID string, p RegisterParams) (*rampway.ContractFunction, error) {
	if _, err := r.merchant(ctx, merchantID); err != nil {
		return nil, err
	}
	net, ok := r.chains.Network(p.Network)
	if !ok {
		return nil, rampway.FieldErrorf("network", "network %q is not configured", p.Network)
	}
	addr, err := rampway.ParseAddress("contract_address", p.ContractAddress)
	if err != nil {
		return nil, err
	}
	fragment, err := unwrapABI(p.ABI)
	if err != nil {
		return nil, err
	}
	fn, err := ParseFunction(fragment)
	if err != nil {
		return nil, &rampway.Error{Code: rampway.EINVALID, Field: "abi", Message: "abi: " + rampway.ErrorMessage(err), Err: err}
	}
	if p.DefaultGasLimit < MinGasLimit || p.DefaultGasLimit > MaxGasLimit {
		return nil, rampway.FieldErrorf("default_gas_limit", "default_gas_limit must be between %d and %d", MinGasLimit, MaxGasLimit)
	}
	if p.PayableSymbol != "" {
		asset, ok := net.Asset(p.PayableSymbol)
		switch {
		case !ok:
			return nil, rampway.FieldErrorf("payable_symbol", "payable_symbol %q is not an asset of network %s", p.PayableSymbol, net.Name)
		case asset.IsNative() && !fn.Payable():
			return nil, rampway.FieldErrorf("payable_symbol", "payable_symbol %s is the native coin, but %s is not payable", p.PayableSymbol, fn.Signature())
		case !asset.IsNative() && fn.Payable():
			return nil, rampway.FieldErrorf("payable_symbol", "payable_symbol %s is a token, paid by approve and transferFrom; %s must not be payable", p.PayableSymbol, fn.Signature())
		}
	}
	display, err := r.checkDisplay(p.DisplayName, p.ImageURL)
	if err != nil {
		return nil, err
	}
	has, err := r.chains.HasCode(ctx, net.Name, addr)
	if err != nil {
		return nil, &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("network %s cannot be reached to check the contract", net.Name), Err: err}
	}
	if !has {
		return nil, rampway.FieldErrorf("contract_address", "contract_address %s holds no contract on network %s", addr.Hex(), net.Name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, fragment); err != nil {
		return nil, rampway.FieldErrorf("abi", "abi is not valid JSON")
	}
	now := r.now().UTC().Truncate(time.Microsecond)
	f := &rampway.ContractFunction{ID: rampway.NewID(rampway.PrefixContractFunction, now), MerchantID: merchantID, Network: net.Name,
		Contract: addr, ABI: compact.String(), Signature: fn.Signature(), DefaultGasLimit: p.DefaultGasLimit,
		PayableSymbol: p.PayableSymbol, DisplayName: display, ImageURL: p.ImageURL, Status: rampway.ContractFunctionActive,
		CreatedAt: now, UpdatedAt: now}
	if err := r.store.CreateContractFunction(ctx, f); err != nil {
		return nil, fmt.Errorf("register contract function: %w", err)
	}
	return f, nil
}

// checkDisplay checks what the checkout page would show of a function and returns the display
// name trimmed.
func (r *Registry) checkDisplay(displayName, imageURL string) (string, error) {
	display, err := rampway.CheckText("display_name", displayName, rampway.MaxDisplayNameLen)
	if err != nil {
		return "", err
	}
	return display, rampway.CheckImageURL("image_url", imageURL, r.devMode)
}

// unwrapABI accepts the fragment as JSON, or as a JSON string holding JSON.
func unwrapABI(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, rampway.FieldErrorf("abi", "abi is required: the function's ABI fragment")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, rampway.FieldErrorf("abi", "abi is not a valid JSON string")
		}
		raw = []byte(strings.TrimSpace(s))
	}
	if !json.Valid(raw) {
		return nil, rampway.FieldErrorf("abi", "abi is not valid JSON")
	}
	if raw[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) != 1 {
			return nil, rampway.FieldErrorf("abi", "abi must hold exactly one function")
		}
		raw = list[0]
	}
	return raw, nil
}

func (r *Registry) merchant(ctx context.Context, id string) (*rampway.Merchant, error) {
	m, err := r.store.Merchant(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "Merchant %q not found", id)
	}
	return m, err
}

// Get returns one of the merchant's functions. ENOTFOUND (also for another merchant's).
func (r *Registry) Get(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error) {
	notFound := functionNotFound(id)
	if !rampway.ValidID(rampway.PrefixContractFunction, id) {
		return nil, notFound
	}
	f, err := r.store.ContractFunction(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND || (err == nil && f.MerchantID != merchantID) {
		return nil, notFound
	}
	return f, err
}

// List returns the merchant's functions, oldest first. ENOTFOUND for an unknown merchant.
func (r *Registry) List(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error) {
	if _, err := r.merchant(ctx, merchantID); err != nil {
		return nil, err
	}
	return r.store.ContractFunctions(ctx, merchantID)
}

// SetDisplay replaces what the checkout page shows of one of the merchant's functions: its
// display name and image URL, checked as Register checks them ("" for none). Its id, and so
// the merchant's integration, stays. EINVALID names the field at fault; ENOTFOUND.
func (r *Registry) SetDisplay(ctx context.Context, merchantID, id, displayName, imageURL string) (*rampway.ContractFunction, error) {
	display, err := r.checkDisplay(displayName, imageURL)
	if err != nil {
		return nil, err
	}
	if _, err := r.Get(ctx, merchantID, id); err != nil {
		return nil, err
	}
	if r.active != nil {
		defer r.active.Remove(id)
	}
	return r.store.SetContractFunctionDisplay(ctx, merchantID, id, display, imageURL, r.now().UTC().Truncate(time.Microsecond))
}

// Disable stops orders from using a function; existing orders keep it. ENOTFOUND.
func (r *Registry) Disable(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error) {
	if _, err := r.Get(ctx, merchantID, id); err != nil {
		return nil, err
	}
	if r.active != nil {
		defer r.active.Remove(id)
	}
	return r.store.SetContractFunctionStatus(ctx, merchantID, id, rampway.ContractFunctionDisabled, r.now().UTC().Truncate(time.Microsecond))
}

// Active returns an active function of the merchant, parsed, for an order. An unknown,
// foreign or disabled id is EINVALID naming smartContractFunctionId.
func (r *Registry) Active(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, *Function, error) {
	f, err := r.cachedGet(ctx, merchantID, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, nil, rampway.FieldErrorf("contractExecution.smartContractFunctionId", "smartContractFunctionId %q is not a registered function", id)
	}
	if err != nil {
		return nil, nil, err
	}
	if f.Status != rampway.ContractFunctionActive {
		return nil, nil, rampway.FieldErrorf("contractExecution.smartContractFunctionId", "smartContractFunctionId %q is disabled", id)
	}
	fn, err := r.parse(f)
	return f, fn, err
}

func functionNotFound(id string) error {
	return rampway.Errorf(rampway.ENOTFOUND, "Smart-contract function %q not found", id)
}

// cachedGet is Get through the cache of RegistryConfig.ActiveCacheTTL.
func (r *Registry) cachedGet(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error) {
	if r.active == nil {
		return r.Get(ctx, merchantID, id)
	}
	if f, ok := r.active.Get(id); ok {
		if f.MerchantID != merchantID {
			return nil, functionNotFound(id)
		}
		return f, nil
	}
	f, err := r.Get(ctx, merchantID, id)
	if err == nil {
		r.active.Add(id, f)
	}
	return f, err
}

// ForOrder returns the function of a paid order, parsed, whatever its status: an order paid
// before the merchant disabled its function is still executed.
func (r *Registry) ForOrder(ctx context.Context, o *rampway.Order) (*rampway.ContractFunction, *Function, error) {
	f, err := r.Get(ctx, o.MerchantID, o.FunctionID)
	if err != nil {
		return nil, nil, err
	}
	fn, err := r.parse(f)
	return f, fn, err
}

// parse returns f parsed, from the cache when it was parsed before.
func (r *Registry) parse(f *rampway.ContractFunction) (*Function, error) {
	if fn, ok := r.parsed.Load(f.ID); ok {
		return fn.(*Function), nil
	}
	fn, err := ParseFunction([]byte(f.ABI))
	if err != nil {
		return nil, fmt.Errorf("stored function %s: %w", f.ID, err)
	}
	r.parsed.Store(f.ID, fn)
	return fn, nil
}

// FunctionFragment returns the entry of the first function called name in a contract's full
// ABI (a JSON array), to register it.
func FunctionFragment(contractABI, name string) (json.RawMessage, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal([]byte(contractABI), &entries); err != nil {
		return nil, rampway.FieldErrorf("abi", "abi is not a JSON array of entries")
	}
	for _, e := range entries {
		var head struct{ Type, Name string }
		if json.Unmarshal(e, &head) == nil && (head.Type == "function" || head.Type == "") && head.Name == name {
			return e, nil
		}
	}
	return nil, rampway.FieldErrorf("abi", "abi has no function %q", name)
}
