package chainwork

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
)

// committed counts what a wallet's stored transactions not yet mined may spend: each nonce
// once, at its dearest version; a transfer's tokens while it is not mined, an approval's while
// what it serves has a transaction not mined; nothing of another wallet's or of what is mined.
func TestCommitted(t *testing.T) {
	key, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	wallet := crypto.PubkeyToAddress(key.PublicKey)
	token, nft, to := common.HexToAddress("0x70"), common.HexToAddress("0x4e"), common.HexToAddress("0x10")
	signer := types.LatestSignerForChainID(big.NewInt(1337))
	tx := func(pk *ecdsa.PrivateKey, nonce uint64, ref string, dest common.Address, value, feeCap int64, gas uint64, data []byte) *rampway.ChainTx {
		t.Helper()
		s, err := types.SignNewTx(pk, signer, &types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: nonce, GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(feeCap), Gas: gas, To: &dest, Value: big.NewInt(value), Data: data})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := s.MarshalBinary()
		return &rampway.ChainTx{Hash: s.Hash(), Wallet: crypto.PubkeyToAddress(pk.PublicKey), Nonce: nonce, Ref: ref, Raw: raw}
	}
	approve := rampway.ERC20Call(rampway.SelApprove, nft, big.NewInt(700))
	pending := []*rampway.ChainTx{
		tx(key, 4, "or_mined", to, 5, 10, 21_000, nil),                                                      // mined: nothing
		tx(key, 5, "or_a", token, 0, 10, 50_000, approve),                                                   // mined, its call not: 700 DUSD
		tx(key, 6, "or_a", nft, 0, 10, 200_000, []byte{1, 2, 3, 4}),                                         // 2,000,000 wei
		tx(key, 7, "or_b", to, 3, 10, 21_000, nil),                                                          // 210,003
		tx(key, 7, "or_b", to, 3, 12, 21_000, nil),                                                          // re-priced: 252,003
		tx(key, 8, "rf_c", token, 0, 10, 60_000, rampway.ERC20Call(rampway.SelTransfer, to, big.NewInt(9))), // 600,000 wei, 9 DUSD
		tx(key, 8, "rf_c", token, 0, 11, 60_000, rampway.ERC20Call(rampway.SelTransfer, to, big.NewInt(9))), // re-priced: 660,000, not 9 more
		tx(other, 0, "sw_d", to, 1_000_000, 10, 21_000, nil),                                                // another wallet's
	}
	native, tokens, err := committed(pending, wallet, 6)
	if err != nil {
		t.Fatal(err)
	}
	if want := big.NewInt(2_000_000 + 252_003 + 660_000); native.Cmp(want) != 0 {
		t.Errorf("native %s, want %s", native, want)
	}
	if len(tokens) != 1 || tokens[token] == nil || tokens[token].Int64() != 709 {
		t.Errorf("tokens %v, want 709 of %s", tokens, token.Hex())
	}
	// All mined: nothing is committed, the approval neither.
	if native, tokens, err := committed(pending, wallet, 9); err != nil || native.Sign() != 0 || len(tokens) != 0 {
		t.Errorf("all mined: %s, %v, %v; want nothing", native, tokens, err)
	}
	// A stored transaction that does not decode is an error, not nothing.
	bad := *pending[3]
	bad.Raw = []byte{0x02, 0xff}
	if _, _, err := committed([]*rampway.ChainTx{&bad}, wallet, 0); err == nil {
		t.Error("an undecodable transaction was taken as nothing")
	}
}
