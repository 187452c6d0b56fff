package devchain_test

import (
	"bufio"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
)

// Environment of the child process of TestKilledChainKeepsBlocks.
const (
	killChildDir  = "DEVCHAIN_KILL_CHILD_DIR"
	killChildKey  = "DEVCHAIN_KILL_CHILD_KEY"
	killChildMine = 6 // blocks the child mines after the deployment, each with a transfer
)

// A chain with a data directory whose process is killed with SIGKILL (no Close, nothing
// flushed by go-ethereum) comes back with every block Mine returned: the child process mines
// blocks, says its head, and is killed at once; the chain opened again on its directory has
// that head, with the transfers' balances. Without the sync after each block it came back
// blocks behind (its pebble write-ahead log was still in memory).
func TestKilledChainKeepsBlocks(t *testing.T) {
	if dir := os.Getenv(killChildDir); dir != "" {
		killChild(t, dir, os.Getenv(killChildKey))
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledChainKeepsBlocks$", "-test.v")
	cmd.Env = append(os.Environ(), killChildDir+"="+dir, killChildKey+"="+deployerHex)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() { _ = cmd.Process.Kill(); <-done }()
	heads := make(chan uint64, 1)
	var out strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if n, ok := strings.CutPrefix(sc.Text(), "HEAD "); ok {
				if h, err := strconv.ParseUint(n, 10, 64); err == nil {
					heads <- h
				}
			}
		}
		_ = cmd.Wait()
	}()
	var head uint64
	select {
	case head = <-heads:
	case <-done:
		t.Fatalf("the child ended without a head:\n%s\n%s", &out, &stderr)
	case <-time.After(2 * time.Minute):
		t.Fatalf("no head from the child in 2 minutes:\n%s", &stderr)
	}
	// At once: nothing of go-ethereum's (a timer, a background flush) gets to run first.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done

	c := mustStart(t, t.Context(), devchain.Config{Deployer: mustKey(t, deployerHex), BlockTime: -1, DataDir: dir})
	got, err := c.Client().BlockNumber(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mined up to block %d when killed; came back at %d", head, got)
	if got < head {
		t.Fatalf("the chain came back at block %d; it had mined up to %d when it was killed", got, head)
	}
	bal, err := c.Client().BalanceAt(context.Background(), killRecipient, nil)
	if err != nil || bal.Cmp(big.NewInt(killChildMine)) != 0 {
		t.Fatalf("the transfers' recipient holds %v wei (%v), want %d", bal, err, killChildMine)
	}
}

// killRecipient receives 1 wei in each block the child mines.
var killRecipient = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// killChild runs in the child process: it starts a chain on dir, mines killChildMine blocks
// with a transfer each, prints "HEAD <n>" and waits to be killed.
func killChild(t *testing.T, dir, keyHex string) {
	key := mustKey(t, keyHex)
	c, err := devchain.Start(context.Background(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: key, BlockTime: -1, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	client := c.Client()
	from := crypto.PubkeyToAddress(key.PublicKey)
	for range killChildMine {
		nonce, err := client.PendingNonceAt(context.Background(), from)
		if err != nil {
			t.Fatal(err)
		}
		tx := devchaintest.SignTx(t, client, c.ChainID(), key, nonce, killRecipient, big.NewInt(1), nil, 21_000)
		if err := client.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		// The pool takes a transaction in the background: mine once it holds it.
		for {
			n, err := client.PendingNonceAt(context.Background(), from)
			if err != nil {
				t.Fatal(err)
			}
			if n > nonce {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if _, err := c.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	head, err := client.BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("HEAD %d\n", head)
	time.Sleep(5 * time.Minute) // killed long before
}
