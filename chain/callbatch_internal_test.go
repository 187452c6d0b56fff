package chain

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// A batcher that went one by one after a failed batch tries batches again once unbatchedFor
// has passed: a passing failure does not cost batching for the rest of the process's life.
func TestBatchingResumesAfterUnbatched(t *testing.T) {
	t.Parallel()
	var batches, singles atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(strings.TrimSpace(string(body)), "[") {
			batches.Add(1)
			var calls []struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &calls)
			out := make([]map[string]any, len(calls))
			for i, c := range calls {
				out[i] = map[string]any{"jsonrpc": "2.0", "id": c.ID, "result": "0x1"}
			}
			_ = json.NewEncoder(w).Encode(out)
			return
		}
		singles.Add(1)
		var c struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &c)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": c.ID, "result": "0x1"})
	}))
	defer srv.Close()
	rc, err := rpc.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b := NewCallBatcher(rc, 1)
	elems := func() []rpc.BatchElem {
		es := make([]rpc.BatchElem, 3)
		for i := range es {
			es[i] = rpc.BatchElem{Method: "eth_chainId", Result: new(string)}
		}
		return es
	}
	b.mu.Lock()
	b.unbatchedUntil = time.Now().Add(time.Hour)
	b.mu.Unlock()
	b.batch(context.Background(), elems(), false)
	if batches.Load() != 0 || singles.Load() != 3 {
		t.Fatalf("while unbatched: %d batches, %d single calls", batches.Load(), singles.Load())
	}
	b.mu.Lock()
	b.unbatchedUntil = time.Now().Add(-time.Second)
	b.mu.Unlock()
	b.batch(context.Background(), elems(), false)
	if batches.Load() != 1 || singles.Load() != 3 {
		t.Fatalf("after unbatchedFor: %d batches, %d single calls", batches.Load(), singles.Load())
	}
}
