package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/contract"
)

// ContractFunctionView is a registered smart-contract function in the admin API and CLI.
type ContractFunctionView struct {
	SmartContractFunctionID string          `json:"smartContractFunctionId"`
	MerchantID              string          `json:"merchant_id"`
	Network                 string          `json:"network"`
	ContractAddress         string          `json:"contract_address"`
	Signature               string          `json:"signature"`
	ABI                     json.RawMessage `json:"abi"`
	DefaultGasLimit         uint64          `json:"default_gas_limit"`
	PayableSymbol           string          `json:"payable_symbol"`
	// DisplayName and ImageURL are what the hosted checkout page shows the buyer is buying;
	// "" when none was registered.
	DisplayName string `json:"display_name"`
	ImageURL    string `json:"image_url"`
	Status      string `json:"status"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// NewContractFunctionView returns f's view.
func NewContractFunctionView(f *rampway.ContractFunction) ContractFunctionView {
	return ContractFunctionView{SmartContractFunctionID: f.ID, MerchantID: f.MerchantID, Network: f.Network,
		ContractAddress: f.Contract.Hex(), Signature: f.Signature, ABI: json.RawMessage(f.ABI), DefaultGasLimit: f.DefaultGasLimit,
		PayableSymbol: f.PayableSymbol, DisplayName: f.DisplayName, ImageURL: f.ImageURL, Status: string(f.Status),
		CreatedAt: f.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: f.UpdatedAt.UTC().Format(TimeFormat)}
}

// ParseGasLimit reads a gas limit given as a JSON number or a decimal string.
func ParseGasLimit(field string, raw json.RawMessage) (uint64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, rampway.FieldErrorf(field, "%s is required", field)
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, rampway.FieldErrorf(field, "%s must be a whole number", field)
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, rampway.FieldErrorf(field, "%s must be a whole number", field)
	}
	return n, nil
}

func (s *Server) handleRegisterFunction(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Network         *string         `json:"network"`
		ContractAddress *string         `json:"contract_address"`
		ABI             json.RawMessage `json:"abi"`
		DefaultGasLimit json.RawMessage `json:"default_gas_limit"`
		PayableSymbol   *string         `json:"payable_symbol"`
		DisplayName     *string         `json:"display_name"`
		ImageURL        *string         `json:"image_url"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"network", body.Network}, {"contract_address", body.ContractAddress}} {
		if f.v == nil || *f.v == "" {
			return rampway.FieldErrorf(f.name, "%s is required", f.name)
		}
	}
	gas, err := ParseGasLimit("default_gas_limit", body.DefaultGasLimit)
	if err != nil {
		return err
	}
	f, err := s.functions.Register(r.Context(), r.PathValue("merchant_id"), contract.RegisterParams{
		Network: *body.Network, ContractAddress: *body.ContractAddress, ABI: body.ABI, DefaultGasLimit: gas, PayableSymbol: deref(body.PayableSymbol),
		DisplayName: deref(body.DisplayName), ImageURL: deref(body.ImageURL)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, NewContractFunctionView(f))
	return nil
}

func (s *Server) handleListFunctions(w http.ResponseWriter, r *http.Request) error {
	fs, err := s.functions.List(r.Context(), r.PathValue("merchant_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewListView(fs, 0, NewContractFunctionView))
	return nil
}

func (s *Server) handleGetFunction(w http.ResponseWriter, r *http.Request) error {
	f, err := s.functions.Get(r.Context(), r.PathValue("merchant_id"), r.PathValue("function_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewContractFunctionView(f))
	return nil
}

func (s *Server) handleDisableFunction(w http.ResponseWriter, r *http.Request) error {
	var body struct{}
	if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	f, err := s.functions.Disable(r.Context(), r.PathValue("merchant_id"), r.PathValue("function_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewContractFunctionView(f))
	return nil
}
