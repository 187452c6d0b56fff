package chainwork

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/internal/loop"
)

// tokenSweepGas is the least gas limit of an ERC-20 transfer out of a deposit address: ample
// for a token's transfer on Ethereum (about 35,000-65,000).
const tokenSweepGas = 100_000

// tokenGas is the gas limit of the transfer of amount of token from a deposit address to the
// treasury: estimateGas's, at least tokenSweepGas. Each use estimates again: the gas given the
// address, the transfer and its check before it agree within what fees and the estimate move
// in a few blocks.
func (w *Sweeper) tokenGas(ctx context.Context, from, token common.Address, amount *big.Int) uint64 {
	_, limit := estimateGas(ctx, w.client, ethereum.CallMsg{From: from, To: &token, Data: rampway.ERC20Call(rampway.SelTransfer, w.cfg.Treasury, amount)}, tokenSweepGas)
	return limit
}

// SweeperStore is what a sweeper keeps its work in.
type SweeperStore interface {
	rampway.ExecutionStore
	rampway.SweepStore
}

// DepositKeys gives the private keys of deposit addresses by HD index (hd.Signer).
type DepositKeys interface {
	Key(index uint32) (*ecdsa.PrivateKey, error)
}

// SweeperConfig tunes a sweeper.
type SweeperConfig struct {
	// Treasury receives the deposits.
	Treasury common.Address
	// RepriceAfter is as ExecutorConfig's; default 3.
	RepriceAfter uint64
	// Batch bounds the sweeps started in one step; default 50.
	Batch int
}

// Sweeper moves confirmed deposits of one network to the treasury in the background: a native
// deposit is sent on less its gas; a token deposit first gets gas from the hot wallet, then its
// tokens are transferred. Its transactions go through the store like executions (nonces per
// wallet, stored before broadcast, re-priced, followed to depth).
type Sweeper struct {
	cfg    SweeperConfig
	store  SweeperStore
	net    *rampway.Network
	client ExecClient
	hot    rampway.Signer
	keys   DepositKeys
	log    *slog.Logger
	now    func() time.Time
	txs    *txFollower
	// lack is the gas of token sweeps the hot wallet could not pay at the last step (Shortfall).
	lack atomic.Pointer[Shortfall]

	mu      sync.Mutex
	indexes map[common.Address]uint32 // deposit address -> HD index, as learned
}

// NewSweeper returns a sweeper of net.
func NewSweeper(cfg SweeperConfig, store SweeperStore, net *rampway.Network, client ExecClient, hot rampway.Signer, keys DepositKeys,
	log *slog.Logger, now func() time.Time) *Sweeper {
	if cfg.RepriceAfter == 0 {
		cfg.RepriceAfter = 3
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 50
	}
	if now == nil {
		now = time.Now
	}
	w := &Sweeper{cfg: cfg, store: store, net: net, client: client, hot: hot, keys: keys, log: log.With("network", net.Name), now: now,
		indexes: map[common.Address]uint32{}}
	w.txs = &txFollower{net: net, client: client, store: store, kinds: []rampway.TxKind{rampway.TxGas, rampway.TxSweep}, signer: w.signer,
		settle: func(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error {
			m, err := mined(net, t, rec)
			if err != nil {
				return err
			}
			return store.FinishSweepTx(ctx, net.Name, m, w.at())
		}, repriceAfter: cfg.RepriceAfter, log: w.log, now: w.at, sent: map[common.Hash]bool{}}
	return w
}

func (w *Sweeper) at() time.Time { return w.now().UTC().Truncate(time.Microsecond) }

// Run steps every poll until ctx ends.
func (w *Sweeper) Run(ctx context.Context, poll time.Duration) {
	loop.Every(ctx, poll, w.log, "sweep step", w.Step)
}

// signer is the key of the hot wallet or of a deposit address.
func (w *Sweeper) signer(addr common.Address) rampway.Signer {
	if addr == w.hot.Address() {
		return w.hot
	}
	w.mu.Lock()
	i, ok := w.indexes[addr]
	w.mu.Unlock()
	if !ok {
		sweeps, err := w.store.Sweeps(context.Background(), w.net.Name, addr)
		if err != nil || len(sweeps) == 0 {
			return nil
		}
		i = sweeps[0].Index
	}
	s, err := w.depositSigner(addr, i)
	if err != nil {
		w.log.Error("deposit key", "address", addr.Hex(), "error", err)
		return nil
	}
	return s
}

// depositSigner derives the key of deposit address addr at index, checking it is that address.
func (w *Sweeper) depositSigner(addr common.Address, index uint32) (rampway.Signer, error) {
	k, err := w.keys.Key(index)
	if err != nil {
		return nil, err
	}
	s := chain.NewKeySigner(k)
	if s.Address() != addr {
		return nil, fmt.Errorf("deposit index %d derives %s, not %s: the sweeper's key is not the API's", index, s.Address().Hex(), addr.Hex())
	}
	w.mu.Lock()
	w.indexes[addr] = index
	w.mu.Unlock()
	return s, nil
}

// Step follows the sweeps' transactions, sends the tokens of funded sweeps, and starts new ones.
func (w *Sweeper) Step(ctx context.Context) error {
	head, err := w.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	if err := w.txs.follow(ctx, head); err != nil {
		return err
	}
	tip, feeCap, err := fees(ctx, w.client)
	if err != nil {
		return err
	}
	funded, err := w.store.FundedSweeps(ctx, w.net.Name)
	if err != nil {
		return err
	}
	// A sweep that fails stops no other: the candidates come in the same order every step, and
	// one that always fails (a token answering balanceOf oddly) would otherwise hold up the rest.
	var failed []error
	st := &sweepStep{head: head, tip: tip, feeCap: feeCap}
	for _, sw := range funded {
		if err := w.sendTokens(ctx, st, sw); err != nil && !errors.Is(err, errNoLiquidity) {
			failed = append(failed, fmt.Errorf("sweep %s: %w", sw.ID, err))
		}
	}
	candidates, err := w.store.SweepCandidates(ctx, w.net.Name, w.cfg.Batch)
	if err != nil {
		return errors.Join(append(failed, err)...)
	}
	for _, sw := range candidates {
		if err := w.start(ctx, st, sw); err != nil && !errors.Is(err, errNoLiquidity) {
			failed = append(failed, fmt.Errorf("sweep of %s at %s: %w", tokenName(sw.Token), sw.Address.Hex(), err))
		}
	}
	var lack *Shortfall
	if st.short > 0 {
		w.log.Error("hot wallet cannot pay the gas of token sweeps: waiting for funds", "wallet", w.hot.Address().Hex(),
			"sweeps_waiting", st.short, "balance_wei", st.hot.native.String(), "needed_wei", st.needed.String())
		what := "the gas of a token sweep"
		if st.short > 1 {
			what = fmt.Sprintf("the gas of %d token sweeps", st.short)
		}
		lack = &Shortfall{Network: w.net.Name, Wallet: w.hot.Address(), Asset: w.net.Native, Have: new(big.Int).Set(st.hot.native),
			Need: new(big.Int).Set(st.needed), For: what, Since: w.at()}
	}
	publishShortfall(&w.lack, lack, len(failed) == 0)
	return errors.Join(failed...)
}

// Shortfall is the gas of token sweeps the hot wallet could not pay at the sweeper's last
// step (Need is the first sweep's), or nil when it paid for all it had to.
func (w *Sweeper) Shortfall() *Shortfall { return w.lack.Load() }

// sweepStep is what a step reads once: the head, the fees, and what the hot wallet can spend
// on gas for token sweeps (read when one needs it first).
type sweepStep struct {
	head        uint64
	tip, feeCap *big.Int
	hot         *liquidity
	// short counts the sweeps the hot wallet could not give gas to; needed is the first one's.
	short  int
	needed *big.Int
}

// tokenName is a token's address, or "the native coin".
func tokenName(token common.Address) string {
	if token == (common.Address{}) {
		return "the native coin"
	}
	return token.Hex()
}

// signed signs a transaction of from and returns it as the store keeps it.
func (w *Sweeper) signed(ctx context.Context, s rampway.Signer, head uint64, tx *types.DynamicFeeTx) (*rampway.ChainTx, error) {
	tx.ChainID = w.net.ChainID
	signed, err := s.SignTx(ctx, types.NewTx(tx), w.net.ChainID)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &rampway.ChainTx{Hash: signed.Hash(), Network: w.net.Name, Wallet: s.Address(), Nonce: tx.Nonce, Raw: raw, SentBlock: head}, nil
}

// start begins the sweep of a deposit address's asset.
func (w *Sweeper) start(ctx context.Context, st *sweepStep, sw *rampway.Sweep) error {
	head, tip, feeCap := st.head, st.tip, st.feeCap
	log := w.log.With("address", sw.Address.Hex(), "token", sw.Token.Hex())
	from, err := w.depositSigner(sw.Address, sw.Index)
	if err != nil {
		log.Error("cannot sweep", "error", err)
		return nil
	}
	native, err := w.client.BalanceAt(ctx, sw.Address, nil)
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	nonce, err := w.client.PendingNonceAt(ctx, sw.Address)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	var (
		kind   = rampway.TxSweep
		wallet = sw.Address
		sign   func(uint64) (*rampway.ChainTx, error)
		gasFee *big.Int // what the hot wallet's gas may cost it
	)
	if sw.Token == (common.Address{}) {
		gas, err := w.client.EstimateGas(ctx, ethereum.CallMsg{From: sw.Address, To: &w.cfg.Treasury, Value: big.NewInt(1)})
		if err != nil {
			return fmt.Errorf("estimate gas: %w", err)
		}
		cost := new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas))
		sw.Amount = new(big.Int).Sub(native, cost)
		if sw.Amount.Cmp(cost) > 0 { // worth more than its gas
			sign = func(n uint64) (*rampway.ChainTx, error) {
				return w.signed(ctx, from, head, &types.DynamicFeeTx{Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &w.cfg.Treasury, Value: sw.Amount})
			}
		}
	} else {
		if sw.Amount, err = erc20Balance(ctx, w.client, sw.Token, sw.Address, nil); err != nil {
			return err
		}
		var gas uint64
		if sw.Amount.Sign() > 0 {
			gas = w.tokenGas(ctx, sw.Address, sw.Token, sw.Amount)
		}
		need := new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas))
		switch {
		case sw.Amount.Sign() == 0:
		case native.Cmp(need) >= 0:
			sign = func(n uint64) (*rampway.ChainTx, error) {
				return w.signed(ctx, from, head, &types.DynamicFeeTx{Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &sw.Token,
					Value: new(big.Int), Data: rampway.ERC20Call(rampway.SelTransfer, w.cfg.Treasury, sw.Amount)})
			}
		default: // gas for the transfer first, from the hot wallet
			kind, wallet = rampway.TxGas, w.hot.Address()
			if nonce, sign, gasFee, err = w.gas(ctx, st, sw.Address, native, gas); err != nil {
				return err
			}
		}
	}
	err = w.store.StartSweep(ctx, sw, wallet, nonce, kind, sign, w.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil // another instance got it
	}
	if err != nil {
		return fmt.Errorf("start sweep of %s: %w", sw.Address.Hex(), err)
	}
	if gasFee != nil {
		st.hot.native.Sub(st.hot.native, gasFee)
	}
	if sign == nil {
		log.Info("deposit too small to sweep", "sweep_id", sw.ID, "amount", sw.Amount.String())
		return nil
	}
	log.Info("sweep started", "sweep_id", sw.ID, "kind", kind, "amount", sw.Amount.String())
	return w.broadcastRef(ctx, sw.ID)
}

// sendTokens transfers a funded sweep's tokens to the treasury.
func (w *Sweeper) sendTokens(ctx context.Context, st *sweepStep, sw *rampway.Sweep) error {
	head, tip, feeCap := st.head, st.tip, st.feeCap
	from, err := w.depositSigner(sw.Address, sw.Index)
	if err != nil {
		w.log.Error("cannot sweep", "address", sw.Address.Hex(), "error", err)
		return nil
	}
	amount, err := erc20Balance(ctx, w.client, sw.Token, sw.Address, nil)
	if err != nil {
		return err
	}
	native, err := w.client.BalanceAt(ctx, sw.Address, nil)
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	// Fees more than doubled since the gas was sent: send the address more (the sweep is funding
	// again) rather than a transfer it cannot pay for or one priced below the market.
	gas := w.tokenGas(ctx, sw.Address, sw.Token, amount)
	if native.Cmp(new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas))) < 0 {
		nonce, sign, gasFee, err := w.gas(ctx, st, sw.Address, native, gas)
		if err != nil {
			return err
		}
		err = w.store.RefuelSweep(ctx, sw.ID, w.hot.Address(), nonce, sign, w.at())
		if rampway.ErrorCode(err) == rampway.ECONFLICT {
			return nil // another instance got it
		}
		if err != nil {
			return fmt.Errorf("refuel: %w", err)
		}
		st.hot.native.Sub(st.hot.native, gasFee)
		w.log.Info("deposit address short of gas for its sweep: more sent", "address", sw.Address.Hex(), "sweep_id", sw.ID,
			"balance", native.String(), "fee_cap", feeCap.String())
		return w.broadcastRef(ctx, sw.ID)
	}
	nonce, err := w.client.PendingNonceAt(ctx, sw.Address)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	err = w.store.SendSweep(ctx, sw.ID, amount, nonce, func(n uint64) (*rampway.ChainTx, error) {
		return w.signed(ctx, from, head, &types.DynamicFeeTx{Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &sw.Token,
			Value: new(big.Int), Data: rampway.ERC20Call(rampway.SelTransfer, w.cfg.Treasury, amount)})
	}, w.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil
	}
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return w.broadcastRef(ctx, sw.ID)
}

// gas returns the hot wallet's next nonce, the signer of its transfer of gas for a token
// sweep to addr, which holds native (enough for the transfer's sweepGas at twice today's fee
// cap), and
// what that transfer may cost the hot wallet (take it off st.hot once it is stored). When the
// hot wallet cannot pay for it (what it holds less what its transactions in flight may take,
// and the gas given this step), it is errNoLiquidity: the sweep waits.
func (w *Sweeper) gas(ctx context.Context, st *sweepStep, addr common.Address, native *big.Int, sweepGas uint64) (uint64, func(uint64) (*rampway.ChainTx, error), *big.Int, error) {
	if st.hot == nil {
		hot, err := spendable(ctx, w.client, w.store, w.net.Name, w.hot.Address())
		if err != nil {
			return 0, nil, nil, fmt.Errorf("hot wallet: %w", err)
		}
		st.hot = hot
	}
	_, limit := transferGas(ctx, w.client, w.hot.Address(), addr)
	topUp := new(big.Int).Sub(new(big.Int).Mul(st.feeCap, new(big.Int).SetUint64(2*sweepGas)), native)
	cost := new(big.Int).Add(topUp, new(big.Int).Mul(st.feeCap, new(big.Int).SetUint64(limit)))
	if st.hot.native.Cmp(cost) < 0 {
		if st.short++; st.short == 1 {
			st.needed = cost
		}
		return 0, nil, nil, errNoLiquidity
	}
	nonce, err := w.client.PendingNonceAt(ctx, w.hot.Address())
	if err != nil {
		return 0, nil, nil, fmt.Errorf("nonce: %w", err)
	}
	return nonce, func(n uint64) (*rampway.ChainTx, error) {
		return w.signed(ctx, w.hot, st.head, &types.DynamicFeeTx{Nonce: n, GasTipCap: st.tip, GasFeeCap: st.feeCap, Gas: limit, To: &addr, Value: topUp})
	}, cost, nil
}

// broadcastRef sends the pending transactions stored for a sweep.
func (w *Sweeper) broadcastRef(ctx context.Context, ref string) error {
	pending, err := w.store.PendingTxs(ctx, w.net.Name)
	if err != nil {
		return err
	}
	for _, t := range pending {
		if t.Ref == ref {
			w.txs.broadcast(ctx, t)
		}
	}
	return nil
}

// erc20Balance is who's balance of token at block (nil: the latest).
func erc20Balance(ctx context.Context, c ExecClient, token, who common.Address, block *big.Int) (*big.Int, error) {
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: append(rampway.SelBalanceOf[:], common.LeftPadBytes(who.Bytes(), 32)...)}, block)
	if err != nil {
		return nil, fmt.Errorf("token balance: %w", err)
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("token %s: balanceOf answered %d bytes", token.Hex(), len(out))
	}
	return new(big.Int).SetBytes(out), nil
}
