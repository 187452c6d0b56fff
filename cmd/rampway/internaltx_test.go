package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
)

// An order paid through a contract (Multicall3 aggregate3Value from the dev payer, which sends
// the ETH on to the deposit address in an internal call: the block's transaction goes to
// Multicall3, not to the deposit address) reaches SUCCESS on rampway dev, which traces its
// blocks: credited the amount once, its payment the forwarding transaction.
func TestDevPaidThroughContract(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	o := createExample(t, dj)
	id := o["order_id"].(string)
	amount, err := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	if err != nil {
		t.Fatal(err)
	}
	deposit := common.HexToAddress(getOrder(t, dj, id)["deposit_address"].(string))
	payer, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	data := bindings.NewMulticall3().PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: deposit, Value: amount}})
	r := send(t, dialChain(t, dj), payer, common.HexToAddress(dj.Contracts.Multicall3), amount, data)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatal("the forward failed")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := getOrder(t, dj, id)
		if v["status"] == string(rampway.StatusSuccess) {
			if v["crypto_amount_received"] != o["crypto_amount"] {
				t.Fatalf("received %v, paid %v", v["crypto_amount_received"], o["crypto_amount"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s still %v 30 s after its payment through Multicall3", id, v["status"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
