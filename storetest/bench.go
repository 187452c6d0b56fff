package storetest

import (
	"math/big"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// BenchCreateOrders measures CreateOrder called from 16 goroutines at once, as the order
// endpoint calls it under load (the benchmark runs 16 clients): each op is one order
// with its order.created event and, the merchant having a webhook URL and a secret, its
// delivery. Deposit indexes grow as the order path's do; addresses are spread like the
// hashes they are.
func BenchCreateOrders(b *testing.B, s rampway.Store) {
	m := mustMerchant(b, s, "bench")
	if err := s.SetWebhookSecret(b.Context(), m.ID, false, "whsec_bench", 0, now()); err != nil {
		b.Fatal(err)
	}
	var n atomic.Uint32
	b.SetParallelism(8) // 8 goroutines per CPU: 16 on 2, as the order benchmark's 16 clients
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o := orderAt(m.ID, now(), 0)
			o.DepositIndex = n.Add(1)
			o.DepositAddress = common.BigToAddress(new(big.Int).SetUint64(uint64(o.DepositIndex) * 0x9e3779b97f4a7c15))
			if err := s.CreateOrder(b.Context(), o); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
}
