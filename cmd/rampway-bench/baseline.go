package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rampway/rampway"
)

// orderRequest is an A1 `order` body: what the load generator sends and what the baseline
// decodes.
type orderRequest struct {
	MerchantID            string            `json:"merchant_id"`
	CryptoSymbol          string            `json:"crypto_symbol"`
	CryptoNetwork         string            `json:"crypto_network"`
	CryptoContractAddress *string           `json:"crypto_contract_address"`
	ContractExecution     contractExecution `json:"contractExecution"`
	MerchantUserID        string            `json:"merchant_user_id"`
	MerchantTxnID         string            `json:"merchant_txn_id,omitempty"`
	MerchantRedirectURL   string            `json:"merchant_redirect_url"`
	MerchantWebhookURL    string            `json:"merchant_webhook_url,omitempty"`
	UserEmailID           string            `json:"user_email_id,omitempty"`
}

type contractExecution struct {
	SmartContractFunctionID string            `json:"smartContractFunctionId"`
	FunctionArgs            map[string]string `json:"function_args"`
	Payment                 *payment          `json:"payment,omitempty"`
	NetworkParams           networkParams     `json:"network_params"`
}

type payment struct {
	PayableCryptoSymbol          string `json:"payableCryptoSymbol"`
	PayableCryptoContractAddress string `json:"payableCryptoContractAddress"`
	TotalValue                   string `json:"totalValue"`
}

type networkParams struct {
	NetworkName    string `json:"networkName"`
	CustomGasLimit string `json:"customGasLimit,omitempty"`
}

// quoteRequest is an A2 `cryptoQuote` body.
type quoteRequest struct {
	MerchantID            string            `json:"merchant_id"`
	CryptoSymbol          string            `json:"crypto_symbol"`
	CryptoNetwork         string            `json:"crypto_network"`
	CryptoContractAddress *string           `json:"crypto_contract_address"`
	ContractExecution     contractExecution `json:"contractExecution"`
}

// fiatQuoteRequest is a B3 `fiatQuote` body.
type fiatQuoteRequest struct {
	MerchantID        string            `json:"merchant_id"`
	OrderFiatSymbol   string            `json:"order_fiat_symbol"`
	FiatPaymentMethod string            `json:"fiat_payment_method"`
	ContractExecution contractExecution `json:"contractExecution"`
}

// fiatOrderRequest is a B1 `order` body: B3's fields and the order's.
type fiatOrderRequest struct {
	MerchantID          string            `json:"merchant_id"`
	OrderFiatSymbol     string            `json:"order_fiat_symbol"`
	FiatPaymentMethod   string            `json:"fiat_payment_method"`
	ContractExecution   contractExecution `json:"contractExecution"`
	MerchantUserID      string            `json:"merchant_user_id"`
	MerchantTxnID       string            `json:"merchant_txn_id,omitempty"`
	MerchantRedirectURL string            `json:"merchant_redirect_url"`
	MerchantWebhookURL  string            `json:"merchant_webhook_url,omitempty"`
	UserEmailID         string            `json:"user_email_id,omitempty"`
}

// depositOrderRequest is a C1 `order` body.
type depositOrderRequest struct {
	MerchantID             string `json:"merchant_id"`
	OrderFiatSymbol        string `json:"order_fiat_symbol"`
	OrderFiatAmount        string `json:"order_fiat_amount"`
	FiatPaymentMethod      string `json:"fiat_payment_method"`
	ConvertToCryptoSymbol  string `json:"convert_to_crypto_symbol"`
	ConvertToCryptoNetwork string `json:"convert_to_crypto_network"`
	MerchantUserID         string `json:"merchant_user_id"`
	MerchantTxnID          string `json:"merchant_txn_id,omitempty"`
	MerchantRedirectURL    string `json:"merchant_redirect_url"`
	MerchantWebhookURL     string `json:"merchant_webhook_url,omitempty"`
	UserEmailID            string `json:"user_email_id,omitempty"`
}

// baseline holds the baselines' shared state: the one-insert handler's database and the size
// of its rows.
type baseline struct {
	db     *sql.DB
	insert string
	// rowSize is the rampway order row's size, set by each order scenario before it runs.
	rowSize atomic.Int64
	// oneWriter, when set, makes inserts wait on a Go mutex, as rampway's SQLite store does
	// with its transactions (a what-if: the minimal handler has none).
	oneWriter *sync.Mutex
}

func newBaseline(db *sql.DB, driver string) *baseline {
	q := `INSERT INTO bench_baseline (id, body) VALUES (?, ?)`
	if driver == "postgres" {
		q = `INSERT INTO bench_baseline (id, body) VALUES ($1, $2)`
	}
	return &baseline{db: db, insert: q}
}

// inserting is the least an order endpoint does: decode the JSON body (into what newBody
// returns), insert one row, answer 201. Its row is the re-encoded body padded to rowSize bytes
// (with the id), about the size of rampway's order row.
func (b *baseline) inserting(newBody func() any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decodeBaseline(w, r, newBody)
		if !ok {
			return
		}
		id := rampway.NewID(rampway.PrefixOrder, time.Now())
		row, err := json.Marshal(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if pad := int(b.rowSize.Load()) - len(id) - len(row); pad > 0 {
			row = append(row, bytes.Repeat([]byte{' '}, pad)...)
		}
		if b.oneWriter != nil {
			b.oneWriter.Lock()
			defer b.oneWriter.Unlock()
		}
		if _, err := b.db.ExecContext(r.Context(), b.insert, id, row); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"order_id": id})
	})
}

// bare is the least a quote endpoint does: decode the JSON body (into what newBody returns)
// and answer 200 with it encoded again (about the size of a quote's answer), touching nothing
// else.
func bare(newBody func() any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decodeBaseline(w, r, newBody)
		if !ok {
			return
		}
		out, err := json.Marshal(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(append(out, '\n'))
	})
}

// decodeBaseline decodes a POST's JSON body into newBody(); on failure it has answered.
func decodeBaseline(w http.ResponseWriter, r *http.Request, newBody func() any) (any, bool) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return nil, false
	}
	req := newBody()
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return req, true
}
