package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/rpcfault"
)

// faultyNode returns a batching client of s's chain through an rpcfault proxy with rules,
// behind a counting proxy (the first to see each request).
func faultyNode(t *testing.T, s *simChain, inFlight int, rules ...rpcfault.Rule) (*BatchingClient, *rpcProxy, *rpcfault.Proxy) {
	t.Helper()
	fault := rpcfault.New(s.chain.RPCURL())
	fault.Set(rules...)
	counted := &rpcProxy{via: fault}
	srv := httptest.NewServer(counted)
	t.Cleanup(srv.Close)
	ec, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	return NewBatchingClient(ec, inFlight), counted, fault
}

// transfers signs n transfers of 1 wei from the payer to itself, nonces first to first+n-1.
func (s *simChain) transfers(t *testing.T, first uint64, n int) []*types.Transaction {
	t.Helper()
	txs := make([]*types.Transaction, n)
	for i := range txs {
		txs[i] = devchaintest.SignTx(t, s.ec, s.chain.ChainID(), s.payer, first+uint64(i), s.addr, big.NewInt(1), nil, 21_000)
	}
	return txs
}

// A batch of broadcasts answers each transaction for itself, whatever order the node's answers
// come in: one the node refuses (its sender cannot pay) and one it has already fail alone, and
// the others all reach it, in the order given: one batch at a time, at most maxBatchCalls
// transactions in one.
func TestBatchingClientSendTransactions(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	c, counted, fault := faultyNode(t, s, BatchesInFlightRemote, rpcfault.Rule{Fault: rpcfault.Reorder})
	poor, _ := crypto.GenerateKey()
	good := s.transfers(t, 0, 40)
	refused := devchaintest.SignTx(t, s.ec, s.chain.ChainID(), poor, 0, s.addr, big.NewInt(1), nil, 21_000)
	txs := append(append(append(append([]*types.Transaction{}, good[:20]...), refused), good[20:]...), good[5])
	const refusedAt, knownAt = 20, 41

	errs := c.SendTransactions(t.Context(), txs)
	for i, err := range errs {
		switch i {
		case refusedAt:
			if err == nil || !strings.Contains(err.Error(), "insufficient funds") {
				t.Errorf("the transaction whose sender cannot pay: %v, want the node's refusal", err)
			}
		case knownAt:
			if err == nil || !strings.Contains(err.Error(), "already known") {
				t.Errorf("a transaction sent twice in one batch: %v, want already known", err)
			}
		default:
			if err != nil {
				t.Errorf("transaction %d: %v", i, err)
			}
		}
	}
	waitPendingNonce(t, s.ec, s.addr, uint64(len(good)))
	if b, r := counted.batches.Load(), counted.requests.Load(); b != 2 || r != 2 {
		t.Errorf("%d transactions went in %d requests (%d batches); want 2 batches", len(txs), r, b)
	}
	if most := counted.mostInFlight.Load(); most != 1 {
		t.Errorf("%d batches of broadcasts at once; want one after another", most)
	}
	if fault.Fired()[rpcfault.Reorder] != 2 {
		t.Errorf("answers reordered %d times; the test wants both batches", fault.Fired()[rpcfault.Reorder])
	}
}

// entryError answers the calls of method whose parameters hold match with a JSON-RPC error of
// their own, in batches and alone; the other calls of a batch get the node's answers.
type entryError struct {
	h      http.Handler
	method string
	match  string
}

func (e *entryError) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = http.NoBody
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = readCloser{bytes.NewReader(body.Bytes())}, int64(body.Len())
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r2)
	type msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method,omitempty"`
		Params  json.RawMessage `json:"params,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(body.Bytes()), []byte("["))
	var calls, answers []msg
	if batch {
		_ = json.Unmarshal(body.Bytes(), &calls)
		_ = json.Unmarshal(rec.Body.Bytes(), &answers)
	} else {
		var c, a msg
		_ = json.Unmarshal(body.Bytes(), &c)
		_ = json.Unmarshal(rec.Body.Bytes(), &a)
		calls, answers = []msg{c}, []msg{a}
	}
	hit := map[string]bool{}
	for _, c := range calls {
		if c.Method == e.method && strings.Contains(strings.ToLower(string(c.Params)), strings.ToLower(e.match)) {
			hit[string(c.ID)] = true
		}
	}
	for i, a := range answers {
		if hit[string(a.ID)] {
			answers[i].Result, answers[i].Error = nil, json.RawMessage(`{"code":-32000,"message":"injected: receipt unavailable"}`)
		}
	}
	var out []byte
	if batch {
		out, _ = json.Marshal(answers)
	} else {
		out, _ = json.Marshal(answers[0])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(out)
}

// mineSent sends txs (the payer's, in nonce order), mines them in one block and waits until
// their receipts are found.
func (s *simChain) mineSent(t *testing.T, txs []*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		if err := s.ec.SendTransaction(t.Context(), tx); err != nil {
			t.Fatal(err)
		}
	}
	// The pool moves sent transactions to its pending ones in the background: a block mined
	// before it holds them all leaves the rest unmined (seen when the machine was busy).
	waitPendingNonce(t, s.ec, s.addr, txs[len(txs)-1].Nonce()+1)
	if _, err := s.chain.Mine(); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, s.ec, txs)
}

// waitIndexed waits until the node finds the receipt of every tx. It indexes a block's
// transactions after the block is mined: until then a lookup says "not found" (FIELD-NOTES;
// TestBatchingClientTransactionReceipts met it once under load).
func waitIndexed(t *testing.T, ec *ethclient.Client, txs []*types.Transaction) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, tx := range txs {
		for {
			_, err := ec.TransactionReceipt(t.Context(), tx.Hash())
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("receipt of %s: %v", tx.Hash().Hex(), err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// waitPendingNonce waits until the node's pending nonce of addr is want. The pool takes a sent
// transaction in at once but moves it to the pending ones in the background: right after the
// sends a lookup may lag (CI met 8 for 10 once).
func waitPendingNonce(t *testing.T, ec *ethclient.Client, addr common.Address, want uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := ec.PendingNonceAt(t.Context(), addr)
		if err == nil && n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pending nonce is %d, %v; want %d", n, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// A batch of receipt lookups answers each hash as ethclient's TransactionReceipt does, in
// whatever order the node's answers come, and an error in one answer is that lookup's alone.
func TestBatchingClientTransactionReceipts(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	txs := s.transfers(t, 0, 40)
	s.mineSent(t, txs)
	unknown := common.HexToHash("0x1234")
	broken := txs[7].Hash()

	fault := rpcfault.New(s.chain.RPCURL())
	fault.Set(rpcfault.Rule{Fault: rpcfault.Reorder})
	counted := &rpcProxy{via: &entryError{h: fault, method: "eth_getTransactionReceipt", match: broken.Hex()}}
	srv := httptest.NewServer(counted)
	t.Cleanup(srv.Close)
	ec, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	c := NewBatchingClient(ec, BatchesInFlightRemote)

	hashes := []common.Hash{unknown}
	for _, tx := range txs {
		hashes = append(hashes, tx.Hash())
	}
	recs, errs := c.TransactionReceipts(t.Context(), hashes)
	for i, h := range hashes {
		switch {
		case h == unknown:
			if recs[i] != nil || !errors.Is(errs[i], ethereum.NotFound) {
				t.Errorf("an unknown hash: %+v, %v; want ethereum.NotFound", recs[i], errs[i])
			}
		case h == broken:
			if recs[i] != nil || errs[i] == nil || !strings.Contains(errs[i].Error(), "injected") || !isRPCError(errs[i]) {
				t.Errorf("the lookup answered with an error: %+v, %v; want that error", recs[i], errs[i])
			}
		default:
			want, err := s.ec.TransactionReceipt(t.Context(), h)
			if err != nil {
				t.Fatal(err)
			}
			if errs[i] != nil || recs[i] == nil || recs[i].TxHash != h || recs[i].BlockHash != want.BlockHash ||
				recs[i].Status != want.Status || recs[i].GasUsed != want.GasUsed {
				t.Errorf("receipt of %s: %+v, %v; ethclient answers %+v", h.Hex(), recs[i], errs[i], want)
			}
		}
	}
	if b, r := counted.batches.Load(), counted.requests.Load(); b != 2 || r != 2 {
		t.Errorf("%d lookups went in %d requests (%d batches); want 2 batches", len(hashes), r, b)
	}
	if fault.Fired()[rpcfault.Reorder] != 2 {
		t.Errorf("answers reordered %d times; the test wants both batches", fault.Fired()[rpcfault.Reorder])
	}
}

// Simulations made at once share batches, and each answers what it answers through
// ethclient: revert reasons, and which call a node refuses as invalid (its error code comes
// back within the batch).
func TestBatchingClientSimulateV1(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	c, counted, _ := faultyNode(t, s, 1, rpcfault.Rule{Fault: rpcfault.Reorder})
	bob := common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	cases := [][]rampway.Call{
		{s.paidMint(2)},
		{s.mint(2, simWei(1))},
		{s.approve(simTokens(1)), s.tokenMint(1)},
		{s.approve(simTokens(1)), s.tokenMint(2)},
		{s.paidMint(60), s.paidMint(60)},
		{s.paidMint(1), {To: s.c.NFT, Value: simWei(1), Data: s.nft.PackMint(bob, big.NewInt(1)), Gas: 1_000}},
	}
	want := make([]string, len(cases))
	for i, calls := range cases {
		reason, failed, err := Simulate(t.Context(), s.ec, s.addr, calls)
		want[i] = fmt.Sprintf("%q %d %v", reason, failed, err)
	}
	const rounds = 8
	got := make([][]string, rounds)
	var wg sync.WaitGroup
	for r := range rounds {
		got[r] = make([]string, len(cases))
		for i, calls := range cases {
			wg.Go(func() {
				reason, failed, err := Simulate(t.Context(), c, s.addr, calls)
				got[r][i] = fmt.Sprintf("%q %d %v", reason, failed, err)
			})
		}
	}
	wg.Wait()
	for r := range rounds {
		for i := range cases {
			if got[r][i] != want[i] {
				t.Errorf("case %d, round %d: %s; through ethclient %s", i, r, got[r][i], want[i])
			}
		}
	}
	if counted.batches.Load() == 0 {
		t.Errorf("%d simulations at once went in %d requests, none a batch", rounds*len(cases), counted.requests.Load())
	}
}

// A node that refuses batches still gets every broadcast, in order, one by one; it is not
// offered batches again.
func TestBatchingClientSendWithoutBatches(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	proxy := &rpcProxy{refuseBatches: true}
	ec, _, _ := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, BatchesInFlightRemote)
	for pass, txs := range [][]*types.Transaction{s.transfers(t, 0, 10), s.transfers(t, 10, 10)} {
		for i, err := range c.SendTransactions(t.Context(), txs) {
			if err != nil {
				t.Fatalf("pass %d, transaction %d: %v", pass, i, err)
			}
		}
		waitPendingNonce(t, s.ec, s.addr, uint64(10*(pass+1)))
	}
	if b := proxy.batches.Load(); b != 1 {
		t.Fatalf("%d batches tried; want the one refused", b)
	}
}

// A node that cannot be reached fails every broadcast of a batch with the transport's error,
// after one more try of the first transaction alone (not each of them).
func TestBatchingClientSendUnreachable(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	proxy := &rpcProxy{node: "http://127.0.0.1:1"} // nothing listens there
	ec, _, _ := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, BatchesInFlightRemote)
	txs := s.transfers(t, 0, 40)
	for i, err := range c.SendTransactions(t.Context(), txs) {
		if err == nil || isRPCError(err) {
			t.Fatalf("transaction %d through a dead node: %v", i, err)
		}
	}
	if r := proxy.requests.Load(); r != 4 {
		t.Fatalf("%d requests for 2 batches to a dead node; want 4 (each batch, then its first transaction alone)", r)
	}
}

// A node whose batch limit is below ours refuses our batches as a whole, as go-ethereum does
// (one "batch too large" error, the other answers left out): each lookup is made again alone
// and answers for itself, and later ones go one by one.
func TestBatchingClientBatchTooLarge(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	txs := s.transfers(t, 0, 10)
	s.mineSent(t, txs)
	proxy := &rpcProxy{batchLimit: 4}
	ec, _, _ := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, BatchesInFlightRemote)
	var hashes []common.Hash
	for _, tx := range txs {
		hashes = append(hashes, tx.Hash())
	}
	for pass := range 2 {
		recs, errs := c.TransactionReceipts(t.Context(), hashes)
		for i, h := range hashes {
			if errs[i] != nil || recs[i] == nil || recs[i].TxHash != h {
				t.Fatalf("pass %d, receipt of %s: %+v, %v", pass, h.Hex(), recs[i], errs[i])
			}
		}
	}
	if b := proxy.batches.Load(); b != 1 {
		t.Fatalf("%d batches sent; want the one refused", b)
	}
}
