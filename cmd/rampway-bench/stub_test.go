package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// The stub node answers go-ethereum's client as a node would: eth_call alone and in batches
// with empty data, anything else with a JSON-RPC error.
func TestStubNode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(stubNode))
	defer srv.Close()
	c, err := rpc.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := map[string]any{"to": "0x00000000000000000000000000000000000000aa", "input": "0x1234"}

	var one hexutil.Bytes
	if err := c.CallContext(t.Context(), &one, "eth_call", call, "latest"); err != nil || len(one) != 0 {
		t.Fatalf("eth_call: %x, %v", one, err)
	}
	out := make([]hexutil.Bytes, 3)
	batch := make([]rpc.BatchElem, 3)
	for i := range batch {
		batch[i] = rpc.BatchElem{Method: "eth_call", Args: []any{call, "latest"}, Result: &out[i]}
	}
	batch[2].Method = "eth_chainId"
	if err := c.BatchCallContext(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	for i, b := range batch[:2] {
		if b.Error != nil || out[i] == nil || len(out[i]) != 0 {
			t.Fatalf("batch call %d: %x, %v", i, out[i], b.Error)
		}
	}
	var rpcErr rpc.Error
	if !errors.As(batch[2].Error, &rpcErr) || rpcErr.ErrorCode() != -32601 {
		t.Fatalf("eth_chainId in the batch: %v, want method not found", batch[2].Error)
	}
}
