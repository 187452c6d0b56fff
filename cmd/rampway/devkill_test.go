package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/sqlite"
)

// devProcess is a `rampway dev` process of the real binary.
type devProcess struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{} // closed once the process has ended
}

// startDevBinary runs `rampway dev` on dir (free ports) and waits for its dev.json.
func startDevBinary(t *testing.T, bin, dir string, args ...string) (*devProcess, devJSON) {
	t.Helper()
	p := &devProcess{cmd: exec.Command(bin, append([]string{"dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir}, args...)...),
		out: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1) // for waitDevJSON, which may take the exit
	go func() {
		errc <- p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.exited })
	return p, waitDevJSON(t, dir, errc, p.out)
}

// kill ends the process with SIGKILL: no shutdown code runs, nothing is flushed or closed.
// Its dev.json stays behind: it is removed here, so that the next start's is the one read.
func (p *devProcess) kill(t *testing.T, dir string) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	if err := os.Remove(filepath.Join(dir, devJSONFile)); err != nil {
		t.Fatal(err)
	}
}

// readyz returns the dev server's /readyz status and body.
func readyz(t *testing.T, dj devJSON) (int, string) {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(dj.API.MintBaseURL, "/mint") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// The embedded default keeps what it mined: `rampway dev` (the real binary) is killed with
// SIGKILL in the middle of a journey, once the payment is mined and the call broadcast, and
// again right after the order is SUCCESS. Each start on the same directory has its chain at
// least at the head it had when it was killed (not behind its own database), and the journey
// ends in SUCCESS with the NFT minted on chain, once. Before the chain's database was synced
// after each block, the kills lost the last blocks: paid orders stayed CREATED, calls stuck,
// an order SUCCESS with no mint.
func TestDevSIGKILLKeepsTheJourney(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	p, dj := startDevBinary(t, bin, dir)
	payer, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	payerAddr := crypto.PubkeyToAddress(payer.PublicKey)
	nft := bindings.NewDemoNFT()
	owned := func(c *ethclient.Client) *big.Int {
		t.Helper()
		n, err := bind.Call(nft.Instance(c, common.HexToAddress(dj.Contracts.NFT)), nil, nft.PackBalanceOf(payerAddr), nft.UnpackBalanceOf)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	c := dialChain(t, dj)
	before := owned(c)

	o := createExample(t, dj)
	id := o["order_id"].(string)
	amount, err := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	if err != nil {
		t.Fatal(err)
	}
	paid := send(t, c, payer, common.HexToAddress(getOrder(t, dj, id)["deposit_address"].(string)), amount, nil) // mined
	// waitStatus polls the order until its status is one of want, and returns it.
	waitStatus := func(dj devJSON, p *devProcess, want ...rampway.OrderStatus) map[string]any {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			v := getOrder(t, dj, id)
			for _, s := range want {
				if v["status"] == string(s) {
					return v
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %s still %v, want %v\n%s", id, v["status"], want, p.out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// killAndRestart kills p and starts rampway dev again on dir; the chain must come back
	// with the head it had when p died: that block, not only its height (a lost block can be
	// mined anew at once, with the calls rampway sends again, the payments lost).
	killAndRestart := func(p *devProcess, c *ethclient.Client, when string) (*devProcess, devJSON, *ethclient.Client) {
		t.Helper()
		head, err := c.HeaderByNumber(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.kill(t, dir)
		p, dj := startDevBinary(t, bin, dir)
		c = dialChain(t, dj)
		got, err := c.BlockNumber(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("killed %s at block %d; came back at block %d", when, head.Number, got)
		same, err := c.HeaderByNumber(context.Background(), head.Number)
		if err != nil || same.Hash() != head.Hash() {
			code, body := readyz(t, dj)
			t.Fatalf("killed %s at block %d (%s), the chain came back at block %d without it (%v) (/readyz: %d %s)\n%s",
				when, head.Number, head.Hash().Hex(), got, err, code, body, p.out)
		}
		return p, dj, c
	}

	v := waitStatus(dj, p, rampway.StatusSmartContractProcessing, rampway.StatusSuccess)
	p, dj, c = killAndRestart(p, c, fmt.Sprintf("with the order %v", v["status"]))
	done := waitStatus(dj, p, rampway.StatusSuccess)
	p, dj, c = killAndRestart(p, c, "right after SUCCESS")

	if code, body := readyz(t, dj); code != 200 {
		t.Fatalf("/readyz %d %s\n%s", code, body, p.out)
	}
	if after := owned(c); after.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("the payer owns %s NFTs, had %s before its order: want one more", after, before)
	}
	if rec, err := c.TransactionReceipt(context.Background(), paid.TxHash); err != nil || rec.BlockHash != paid.BlockHash {
		t.Fatalf("the payment %s, mined in block %s before the kills: %+v, %v", paid.TxHash.Hex(), paid.BlockHash.Hex(), rec, err)
	}
	hash := common.HexToHash(done["execution_tx_hash"].(string))
	rec, err := c.TransactionReceipt(context.Background(), hash)
	if err != nil || rec.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the call %s of the SUCCESS order: receipt %+v, %v", hash.Hex(), rec, err)
	}
	if v := getOrder(t, dj, id); v["status"] != string(rampway.StatusSuccess) || v["crypto_amount_received"] != o["crypto_amount"] {
		t.Fatalf("order at the end: %v", v)
	}
	if strings.Contains(p.out.String(), "chain head is behind") {
		t.Fatalf("the restarted server found its chain behind:\n%s", p.out)
	}
}

// A chain whose head is below the block rampway's database has recorded (the deposit
// watcher's cursor: here set past the head, as a chain that lost its last blocks leaves it)
// is not waited for in silence: in dev mode at once, an error in the log and /readyz 503
// naming the network, its head and the recorded block; ready again once the chain passes it.
func TestReadyzChainBehindRecordedBlock(t *testing.T) {
	t.Parallel()
	ch := devchaintest.Start(t)
	head, err := ch.Client().BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	recorded := head + 3
	dbPath := filepath.Join(t.TempDir(), "rampway.db")
	store, err := sqlite.Open(t.Context(), dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.SetWatchCursor(t.Context(), "devnet", recorded, common.HexToHash("0x01"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	cfgPath := devServeConfig(t, dbPath, ch.RPCURL(), 1, common.HexToAddress("0x000000000000000000000000000000000000c0DE"), "")
	base, out := serveInProcess(t, cfgPath, noEnv)
	get := func() (int, ErrorBody) {
		t.Helper()
		res, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b ErrorBody
		_ = json.NewDecoder(res.Body).Decode(&b)
		return res.StatusCode, b
	}
	waitReady := func(want int) ErrorBody {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			code, b := get()
			if code == want {
				return b
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz %d %+v, want %d\n%s", code, b, want, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b := waitReady(503)
	t.Logf("/readyz: 503 %s", b.Message)
	want := fmt.Sprintf("Network devnet: the chain's head is block %d, behind block %d that rampway has recorded", head, recorded)
	if b.StatusCode != 503 || b.Path != "/readyz" || !strings.Contains(b.Message, want) {
		t.Fatalf("/readyz envelope %+v, want a message saying %q", b, want)
	}
	logs := out.String()
	if !strings.Contains(logs, `"level":"ERROR"`) || !strings.Contains(logs, "chain head is behind the block rampway has recorded") ||
		!strings.Contains(logs, fmt.Sprintf(`"network":"devnet","head":%d,"recorded":%d`, head, recorded)) {
		t.Fatalf("no error line naming the network, head and recorded block:\n%s", logs)
	}

	for range 4 {
		if _, err := ch.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	waitReady(200)
}

// ErrorBody is the API's error envelope, as a client reads it.
type ErrorBody = rampway.ErrorEnvelope
