package main

import (
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway/chain/devchain"
)

// Payments sent at once from one wallet (two `rampway dev pay` side by side: the quickstart's
// tests pay areas A and "listen" together) all go through, each with its own nonce, although
// they read the same pending nonce first.
func TestDevSendConcurrentFromOneWallet(t *testing.T) {
	t.Parallel()
	payer, _ := crypto.GenerateKey()
	deployer, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(payer.PublicKey)
	c, err := devchain.Start(t.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer, BlockTime: 200 * time.Millisecond,
		Fund: []devchain.Funding{{Address: from, Wei: new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ec, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()

	const n = 4
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = devSend(t.Context(), ec, payer, to, big.NewInt(int64(1000+i)), nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("payment %d: %v", i, err)
		}
	}
	if nonce, err := ec.NonceAt(t.Context(), from, nil); err != nil || nonce != n {
		t.Fatalf("payer's nonce after %d payments: %d, %v", n, nonce, err)
	}
	if bal, err := ec.BalanceAt(t.Context(), to, nil); err != nil || bal.Int64() != 1000+1001+1002+1003 {
		t.Fatalf("recipient's balance %v, %v; want every payment's value", bal, err)
	}
}
