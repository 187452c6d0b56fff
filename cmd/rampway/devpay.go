package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
)

// transferSelector is ERC-20 transfer(address,uint256).
var transferSelector = []byte{0xa9, 0x05, 0x9c, 0xbb}

// runDevPay is `rampway dev pay ORDER_ID`: the dev payer (dev.json's payer key) pays an
// order of a running `rampway dev` what is still due (or --amount), as a wallet would: a
// transfer of the order's asset to its deposit address over the chain's RPC URL. It waits
// until the payment is mined and prints its hash; the service does the rest.
func runDevPay(ctx context.Context, args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("dev pay", flag.ContinueOnError)
	fset.SetOutput(stdout)
	dataDir := fset.String("data-dir", ".rampway-dev", "the running rampway dev's data directory (its dev.json)")
	amountFlag := fset.String("amount", "", "pay this much (a decimal in the order's asset, e.g. 0.005) instead of what is due")
	fset.Usage = func() {
		fmt.Fprint(stdout, "Usage: rampway dev pay [--data-dir D] [--amount A] ORDER_ID\n\n"+
			"Pays the order from the dev payer wallet of D/dev.json: what is still due, or --amount.\n\n")
		fset.PrintDefaults()
	}
	// Flags may come after the order id too: `rampway dev pay ord_... --amount 0.005`.
	var pos []string
	for rest := args; ; {
		if err := fset.Parse(rest); err != nil {
			return err
		}
		if fset.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fset.Arg(0)), fset.Args()[1:]
	}
	if len(pos) != 1 {
		fset.Usage()
		return errors.New("dev pay: give one order id")
	}
	orderID := pos[0]
	if !rampway.ValidID(rampway.PrefixOrder, orderID) {
		return fmt.Errorf("dev pay: %q is not an order id (ord_...)", orderID)
	}
	raw, err := os.ReadFile(filepath.Join(*dataDir, devJSONFile))
	if err != nil {
		return fmt.Errorf("dev pay: is rampway dev running on %s? %w", *dataDir, err)
	}
	var dj devJSON
	if err := json.Unmarshal(raw, &dj); err != nil {
		return fmt.Errorf("dev pay: %s: %w", devJSONFile, err)
	}

	o, err := devOrder(ctx, dj, orderID)
	if err != nil {
		return err
	}
	var asset *devAsset
	for i, a := range dj.Assets {
		if a.Symbol == o.CryptoSymbol && a.Network == o.CryptoNetwork {
			asset = &dj.Assets[i]
		}
	}
	if asset == nil {
		return fmt.Errorf("dev pay: order %s is paid in %s on %s, not a dev asset", orderID, o.CryptoSymbol, o.CryptoNetwork)
	}
	amount, err := devDue(o, *asset, *amountFlag)
	if err != nil {
		return err
	}

	key, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		return fmt.Errorf("dev pay: payer key: %w", err)
	}
	c, err := ethclient.DialContext(ctx, dj.Chain.RPCURL)
	if err != nil {
		return fmt.Errorf("dev pay: %w", err)
	}
	defer c.Close()
	deposit := common.HexToAddress(o.DepositAddress)
	to, value, data := deposit, amount, []byte(nil)
	if asset.ContractAddress != "" {
		to, value = common.HexToAddress(asset.ContractAddress), new(big.Int)
		data = append(append(append([]byte{}, transferSelector...), common.LeftPadBytes(deposit.Bytes(), 32)...), common.LeftPadBytes(amount.Bytes(), 32)...)
	}
	hash, err := devSend(ctx, c, key, to, value, data)
	if err != nil {
		return fmt.Errorf("dev pay: %w", err)
	}
	fmt.Fprintf(stdout, "paid %s %s to %s for order %s\ntransaction %s (mined)\n",
		rampway.FormatUnits(amount, asset.Decimals), asset.Symbol, deposit.Hex(), orderID, hash.Hex())
	return nil
}

// devOrderView is what dev pay reads of an order lookup.
type devOrderView struct {
	Status               string `json:"status"`
	CryptoSymbol         string `json:"crypto_symbol"`
	CryptoNetwork        string `json:"crypto_network"`
	CryptoAmount         string `json:"crypto_amount"`
	CryptoAmountReceived string `json:"crypto_amount_received"`
	DepositAddress       string `json:"deposit_address"`
}

// devOrder looks the order up as the demo merchant.
func devOrder(ctx context.Context, dj devJSON, id string) (*devOrderView, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order/"+id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-API-KEY", dj.Merchant.APIKey)
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("dev pay: look the order up: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		var e rampway.ErrorEnvelope
		_ = json.Unmarshal(body, &e)
		return nil, fmt.Errorf("dev pay: order %s: %d %s (only the demo merchant's orders can be paid this way)", id, res.StatusCode, e.Message)
	}
	var o devOrderView
	if err := json.Unmarshal(body, &o); err != nil {
		return nil, fmt.Errorf("dev pay: order %s: %w", id, err)
	}
	return &o, nil
}

// devDue is what dev pay sends: the given amount, or what the order still waits for.
func devDue(o *devOrderView, a devAsset, given string) (*big.Int, error) {
	if given != "" {
		v, err := rampway.ParseUnits(given, a.Decimals)
		if err != nil || v.Sign() <= 0 {
			return nil, fmt.Errorf("dev pay: --amount must be a positive decimal with at most %d decimal places", a.Decimals)
		}
		return v, nil
	}
	if !rampway.AwaitsPayment(rampway.AreaMint, rampway.OrderStatus(o.Status)) {
		return nil, fmt.Errorf("dev pay: the order is %s: nothing is due (give --amount to pay it anyway)", o.Status)
	}
	total, err1 := rampway.ParseUnits(o.CryptoAmount, a.Decimals)
	got, err2 := rampway.ParseUnits(o.CryptoAmountReceived, a.Decimals)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("dev pay: the order's amounts %q, %q", o.CryptoAmount, o.CryptoAmountReceived)
	}
	due := total.Sub(total, got)
	if due.Sign() <= 0 {
		return nil, errors.New("dev pay: nothing is due (a payment is being confirmed)")
	}
	return due, nil
}

// devSend signs and sends one EIP-1559 transaction from key and waits until it is mined.
// Payments made at once from the same wallet (two `rampway dev pay` side by side) read the same
// pending nonce: the one that comes second is refused as a replacement (or its nonce is already
// used) and is signed again with the next nonce, a few times at most.
func devSend(ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) (common.Hash, error) {
	var tx *types.Transaction
	for attempt := 1; ; attempt++ {
		var err error
		tx, err = devSignNext(ctx, c, key, to, value, data)
		if err != nil {
			return common.Hash{}, err
		}
		err = c.SendTransaction(ctx, tx)
		if err == nil {
			break
		}
		if !chain.NonceUsed(err) || attempt == devSendAttempts {
			return common.Hash{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r, err := c.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return tx.Hash(), fmt.Errorf("transaction %s failed on chain", tx.Hash())
			}
			return tx.Hash(), nil
		}
		select {
		case <-ctx.Done():
			return tx.Hash(), fmt.Errorf("transaction %s not mined within a minute", tx.Hash())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// devSendAttempts bounds the sends of one devSend whose nonce another payment took meanwhile.
const devSendAttempts = 8

// devSignNext signs the transaction with the wallet's next nonce, counting its pending ones.
func devSignNext(ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, err
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	gas := uint64(21_000)
	if len(data) > 0 {
		gas = 100_000 // an ERC-20 transfer to a new holder costs ~52k
	}
	return types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data})
}
