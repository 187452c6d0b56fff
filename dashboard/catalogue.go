package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/merchant"
)

// Functions is the registry of merchants' contract functions (contract.Registry): the
// catalogue registers, lists, shows, renames and disables them.
type Functions interface {
	Register(ctx context.Context, merchantID string, p contract.RegisterParams) (*rampway.ContractFunction, error)
	List(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error)
	Get(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
	SetDisplay(ctx context.Context, merchantID, id, displayName, imageURL string) (*rampway.ContractFunction, error)
	Disable(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
}

// DepositAddresses are merchants' deposit addresses of area C (merchant.DepositAddresses),
// and the configured networks whose assets they, and registered functions, are for.
type DepositAddresses interface {
	Set(ctx context.Context, merchantID string, p merchant.DepositAddressParams) (*rampway.MerchantDepositAddress, error)
	List(ctx context.Context, merchantID string) ([]*rampway.MerchantDepositAddress, error)
	Delete(ctx context.Context, merchantID, network, symbol string) error
	Networks() []*rampway.Network
}

// maxABIForm bounds the catalogue's forms that carry a contract's ABI: a whole ABI pasted
// (a large contract's is tens of KiB, more once form-encoded).
const maxABIForm = 1 << 20

// defaultGasLimit is the gas limit the registration form proposes.
const defaultGasLimit = 300_000

// routeCatalogue registers the catalogue pages: contract functions (registered from a pasted
// ABI, shown, renamed, disabled) and deposit addresses. They need both the function registry
// and the deposit addresses (which know the networks).
func (h *Handler) routeCatalogue() {
	if h.d.Functions == nil || h.d.Deposits == nil {
		return
	}
	conf := func(fn func(http.ResponseWriter, *http.Request, *req)) http.HandlerFunc {
		return h.handle(rampway.DashConfigure, fn)
	}
	large := func(fn func(http.ResponseWriter, *http.Request, *req)) http.HandlerFunc {
		return h.handleSized(rampway.DashConfigure, maxABIForm, fn)
	}
	h.mux.HandleFunc("GET /dashboard/catalogue", conf(h.catalogue))
	h.mux.HandleFunc("POST /dashboard/catalogue/abi", large(h.pickFunction))
	h.mux.HandleFunc("POST /dashboard/catalogue/function-form", large(h.functionForm))
	h.mux.HandleFunc("POST /dashboard/catalogue/functions", large(h.registerFunction))
	h.mux.HandleFunc("GET /dashboard/catalogue/functions/{id}", conf(h.function))
	h.mux.HandleFunc("POST /dashboard/catalogue/functions/{id}/display", conf(h.setFunctionDisplay))
	h.mux.HandleFunc("POST /dashboard/catalogue/functions/{id}/disable", conf(h.disableFunction))
	h.mux.HandleFunc("POST /dashboard/catalogue/deposit-addresses", conf(h.setDepositAddress))
	h.mux.HandleFunc("POST /dashboard/catalogue/deposit-addresses/remove", conf(h.removeDepositAddress))
}

// catalogueData is the catalogue page: the merchant's functions and deposit addresses, the
// networks and their assets, and the values of a refused form to show again.
type catalogueData struct {
	Functions []functionRow
	Deposits  []*rampway.MerchantDepositAddress
	Networks  []*rampway.Network
	// Form holds the values of a refused form (step 1 of a registration, a deposit address).
	Form          url.Values
	MerchantQuery string
}

// functionRow is a registered function in the catalogue's list.
type functionRow struct {
	*rampway.ContractFunction
	// Name is its display name, else its ABI name.
	Name string
	Href string
}

// functionName is what the catalogue calls f: its display name, else the name in its signature.
func functionName(f *rampway.ContractFunction) string {
	if f.DisplayName != "" {
		return f.DisplayName
	}
	name, _, _ := strings.Cut(f.Signature, "(")
	return name
}

// catalogue shows the catalogue page.
func (h *Handler) catalogue(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	h.showCatalogue(w, r, q, http.StatusOK, doneNotices[r.URL.Query().Get("done")], "", nil)
}

// showCatalogue renders the catalogue page with a notice or an error, and the values of a
// refused form (nil for none).
func (h *Handler) showCatalogue(w http.ResponseWriter, r *http.Request, q *req, status int, notice, msg string, form url.Values) {
	ctx := r.Context()
	fs, err := h.d.Functions.List(ctx, q.Merchant.ID)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	ds, err := h.d.Deposits.List(ctx, q.Merchant.ID)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	if form == nil {
		form = url.Values{}
	}
	mq := merchantQuery(q)
	d := catalogueData{Deposits: ds, Networks: h.d.Deposits.Networks(), Form: form, MerchantQuery: mq}
	for _, f := range fs {
		d.Functions = append(d.Functions, functionRow{f, functionName(f), "/dashboard/catalogue/functions/" + url.PathEscape(f.ID) + mq})
	}
	h.show(w, r, q, status, "catalogue.html", view{Title: "Catalogue", Section: "catalogue", Notice: notice, Error: msg, Data: d, Path: "/dashboard/catalogue" + mq})
}

// catalogueError answers a refused catalogue form: a mistake in a field (EINVALID) on the
// catalogue page with its message and the values sent; anything else as userError does.
func (h *Handler) catalogueError(w http.ResponseWriter, r *http.Request, q *req, err error) {
	if rampway.ErrorCode(err) == rampway.EINVALID {
		h.showCatalogue(w, r, q, http.StatusBadRequest, "", rampway.ErrorMessage(err), r.PostForm)
		return
	}
	h.userError(w, r, q, err)
}

// network returns the configured network called name; EINVALID naming field otherwise.
func (h *Handler) network(field, name string) (*rampway.Network, error) {
	var names []string
	for _, n := range h.d.Deposits.Networks() {
		if n.Name == name {
			return n, nil
		}
		names = append(names, n.Name)
	}
	if name == "" {
		return nil, rampway.FieldErrorf(field, "Choose a network: one of %s.", strings.Join(names, ", "))
	}
	return nil, rampway.FieldErrorf(field, "network %q is not configured; one of %s", rampway.Echo(name), strings.Join(names, ", "))
}

// abiFunction is a function of a pasted ABI, offered for registration.
type abiFunction struct {
	Name, Signature string
	Payable         bool
	Inputs          []contract.Param
	// Fragment is its ABI entry, compact: what step 2 and the registration send.
	Fragment string
	// Problem says why it cannot be registered ("" when it can).
	Problem string
}

// abiFunctions returns the state-changing functions of a pasted ABI (a contract's whole ABI:
// a JSON array of entries; or one entry, as an object or a one-element array) and how many
// read-only ones (view, pure) it left out. EINVALID naming "abi" when there is none.
func abiFunctions(pasted string) ([]abiFunction, int, error) {
	raw := []byte(strings.TrimSpace(pasted))
	if len(raw) == 0 {
		return nil, 0, rampway.FieldErrorf("abi", "Paste the contract's ABI: its JSON array, or the entry of one function.")
	}
	var entries []json.RawMessage
	switch {
	case !json.Valid(raw):
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, 0, rampway.FieldErrorf("abi", "The ABI is not valid JSON (%v).", err)
	case raw[0] == '{':
		entries = []json.RawMessage{raw}
	case raw[0] == '[':
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, 0, rampway.FieldErrorf("abi", "The ABI must be a JSON array of entries, or one entry (an object).")
		}
	default:
		return nil, 0, rampway.FieldErrorf("abi", "The ABI must be a JSON array of entries, or one entry (an object).")
	}
	var (
		out      []abiFunction
		readOnly int
	)
	for _, e := range entries {
		var head struct {
			Type            *string `json:"type"`
			Name            string  `json:"name"`
			StateMutability string  `json:"stateMutability"`
			Constant        bool    `json:"constant"`
		}
		if json.Unmarshal(e, &head) != nil || (head.Type != nil && *head.Type != "function" && *head.Type != "") {
			continue // events, errors, the constructor...
		}
		if head.StateMutability == "view" || head.StateMutability == "pure" || (head.StateMutability == "" && head.Constant) {
			readOnly++
			continue
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, e) // valid: part of valid JSON
		f := abiFunction{Name: head.Name, Fragment: compact.String()}
		fn, err := contract.ParseFunction(e)
		if err != nil {
			f.Problem = rampway.ErrorMessage(err)
		} else {
			f.Name, f.Signature, f.Payable, f.Inputs = fn.Name(), fn.Signature(), fn.Payable(), fn.Inputs()
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, readOnly, rampway.FieldErrorf("abi", "The ABI has no function that changes state (%d read-only ones, view or pure, are left out).", readOnly)
	}
	return out, readOnly, nil
}

// registration is a registration in progress: the contract (network and address), and, from
// step 2 on, the function picked and the registration form's values.
type registration struct {
	Network         *rampway.Network
	ContractAddress string
	Functions       []abiFunction
	ReadOnly        int
	// Function is the function picked (step 2).
	Function abiFunction
	// GasLimit, PayableSymbol, DisplayName and ImageURL are the registration form's values.
	GasLimit, PayableSymbol, DisplayName, ImageURL string
	MerchantQuery                                  string
}

// contractOf reads and checks a registration form's network and contract address.
func (h *Handler) contractOf(form url.Values) (*rampway.Network, string, error) {
	n, err := h.network("network", form.Get("network"))
	if err != nil {
		return nil, "", err
	}
	addr, err := rampway.ParseAddress("contract_address", strings.TrimSpace(form.Get("contract_address")))
	if err != nil {
		return nil, "", err
	}
	return n, addr.Hex(), nil
}

// pickFunction is step 1 of a registration: the pasted ABI, network and contract address
// checked, the ABI's state-changing functions are listed to pick one.
func (h *Handler) pickFunction(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	n, addr, err := h.contractOf(r.PostForm)
	if err != nil {
		h.catalogueError(w, r, q, err)
		return
	}
	fs, readOnly, err := abiFunctions(r.PostForm.Get("abi"))
	if err != nil {
		h.catalogueError(w, r, q, err)
		return
	}
	h.show(w, r, q, http.StatusOK, "catalogue_pick.html", view{Title: "Pick a function", Section: "catalogue", Path: "/dashboard/catalogue" + merchantQuery(q),
		Data: registration{Network: n, ContractAddress: addr, Functions: fs, ReadOnly: readOnly, MerchantQuery: merchantQuery(q)}})
}

// picked reads a step-2 form: the contract and the one function picked from its ABI.
func (h *Handler) picked(form url.Values) (registration, error) {
	n, addr, err := h.contractOf(form)
	if err != nil {
		return registration{}, err
	}
	fs, _, err := abiFunctions(form.Get("fragment"))
	if err == nil && len(fs) != 1 {
		err = rampway.FieldErrorf("abi", "Pick one function of the ABI.")
	}
	if err == nil && fs[0].Problem != "" {
		err = rampway.FieldErrorf("abi", "abi: %s", fs[0].Problem)
	}
	if err != nil {
		return registration{}, err
	}
	return registration{Network: n, ContractAddress: addr, Function: fs[0]}, nil
}

// functionForm is step 2 of a registration: the function picked, with its arguments, and the
// form that registers it (gas limit, payable asset, display name, picture).
func (h *Handler) functionForm(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	reg, err := h.picked(r.PostForm)
	if err != nil {
		h.catalogueError(w, r, q, err)
		return
	}
	reg.GasLimit, reg.MerchantQuery = strconv.Itoa(defaultGasLimit), merchantQuery(q)
	if reg.Function.Payable {
		reg.PayableSymbol = reg.Network.Native.Symbol
	}
	h.show(w, r, q, http.StatusOK, "catalogue_register.html", view{Title: "Register " + reg.Function.Name, Section: "catalogue", Data: reg,
		Path: "/dashboard/catalogue" + reg.MerchantQuery})
}

// registerFunction registers the function picked with contract.Registry.Register, which checks
// it as for the admin API (network, address holding a contract, ABI, gas limit, payable asset,
// display name and picture). A refused field shows the form again with the error.
func (h *Handler) registerFunction(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	form := r.PostForm
	reg, err := h.picked(form)
	if err != nil {
		h.catalogueError(w, r, q, err)
		return
	}
	reg.GasLimit, reg.PayableSymbol = strings.TrimSpace(form.Get("default_gas_limit")), form.Get("payable_symbol")
	reg.DisplayName, reg.ImageURL = form.Get("display_name"), strings.TrimSpace(form.Get("image_url"))
	reg.MerchantQuery = merchantQuery(q)
	var f *rampway.ContractFunction
	gas, perr := strconv.ParseUint(reg.GasLimit, 10, 64)
	if perr != nil {
		err = rampway.FieldErrorf("default_gas_limit", "The gas limit must be a whole number between %d and %d.", contract.MinGasLimit, contract.MaxGasLimit)
	} else {
		f, err = h.d.Functions.Register(r.Context(), q.Merchant.ID, contract.RegisterParams{Network: reg.Network.Name, ContractAddress: reg.ContractAddress,
			ABI: json.RawMessage(reg.Function.Fragment), DefaultGasLimit: gas, PayableSymbol: reg.PayableSymbol, DisplayName: reg.DisplayName, ImageURL: reg.ImageURL})
	}
	if err != nil {
		if rampway.ErrorCode(err) == rampway.EINVALID {
			h.show(w, r, q, http.StatusBadRequest, "catalogue_register.html", view{Title: "Register " + reg.Function.Name, Section: "catalogue",
				Error: rampway.ErrorMessage(err), Data: reg, Path: "/dashboard/catalogue" + reg.MerchantQuery})
			return
		}
		h.userError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "function.register", f.ID, fmt.Sprintf("%s on %s at %s", f.Signature, f.Network, f.Contract.Hex()))
	seeOther(w, r, q, "/dashboard/catalogue/functions/"+url.PathEscape(f.ID), "function-registered")
}

// functionData is a registered function's page.
type functionData struct {
	F      *rampway.ContractFunction
	Name   string
	Inputs []contract.Param
	// DisplayName and ImageURL are the display form's values (a refused form's when it was).
	DisplayName, ImageURL string
	MerchantQuery         string
}

// function shows one of the merchant's functions: its contract, arguments, display, status.
func (h *Handler) function(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	h.showFunction(w, r, q, http.StatusOK, doneNotices[r.URL.Query().Get("done")], "", nil)
}

// showFunction renders a function's page with a notice or an error, and the values of a
// refused display form (nil for none).
func (h *Handler) showFunction(w http.ResponseWriter, r *http.Request, q *req, status int, notice, msg string, form url.Values) {
	f, err := h.d.Functions.Get(r.Context(), q.Merchant.ID, r.PathValue("id"))
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	d := functionData{F: f, Name: functionName(f), DisplayName: f.DisplayName, ImageURL: f.ImageURL, MerchantQuery: merchantQuery(q)}
	if fn, err := contract.ParseFunction([]byte(f.ABI)); err == nil {
		d.Inputs = fn.Inputs()
	}
	if form != nil {
		d.DisplayName, d.ImageURL = form.Get("display_name"), form.Get("image_url")
	}
	h.show(w, r, q, status, "catalogue_function.html", view{Title: d.Name, Section: "catalogue", Notice: notice, Error: msg, Data: d,
		Path: "/dashboard/catalogue/functions/" + url.PathEscape(f.ID) + d.MerchantQuery})
}

// setFunctionDisplay sets what the checkout page shows of a function: its display name and
// picture (contract.Registry.SetDisplay, checked as at registration).
func (h *Handler) setFunctionDisplay(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	name, image := r.PostForm.Get("display_name"), strings.TrimSpace(r.PostForm.Get("image_url"))
	f, err := h.d.Functions.SetDisplay(r.Context(), q.Merchant.ID, r.PathValue("id"), name, image)
	if err != nil {
		if rampway.ErrorCode(err) == rampway.EINVALID {
			h.showFunction(w, r, q, http.StatusBadRequest, "", rampway.ErrorMessage(err), r.PostForm)
			return
		}
		h.userError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "function.display", f.ID, fmt.Sprintf("name %q, image %q", f.DisplayName, f.ImageURL))
	seeOther(w, r, q, "/dashboard/catalogue/functions/"+url.PathEscape(f.ID), "function-shown")
}

// disableFunction stops new orders from using a function.
func (h *Handler) disableFunction(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	f, err := h.d.Functions.Disable(r.Context(), q.Merchant.ID, r.PathValue("id"))
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "function.disable", f.ID, f.Signature)
	seeOther(w, r, q, "/dashboard/catalogue/functions/"+url.PathEscape(f.ID), "function-off")
}

// setDepositAddress sets the merchant's deposit address for an asset of a network (the form's
// asset is "network/symbol"), checked by merchant.DepositAddresses.Set as for the admin API.
func (h *Handler) setDepositAddress(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	network, symbol, _ := strings.Cut(r.PostForm.Get("asset"), "/")
	a, err := h.d.Deposits.Set(r.Context(), q.Merchant.ID, merchant.DepositAddressParams{Network: network, Symbol: symbol,
		Address: strings.TrimSpace(r.PostForm.Get("address"))})
	if err != nil {
		h.catalogueError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "deposit_address.set", a.Network+"/"+a.Symbol, a.Address.Hex())
	seeOther(w, r, q, "/dashboard/catalogue", "deposit-set")
}

// removeDepositAddress removes the merchant's deposit address for an asset of a network.
func (h *Handler) removeDepositAddress(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	network, symbol := r.PostForm.Get("network"), r.PostForm.Get("symbol")
	if err := h.d.Deposits.Delete(r.Context(), q.Merchant.ID, network, symbol); err != nil {
		h.userError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "deposit_address.delete", network+"/"+symbol, "")
	seeOther(w, r, q, "/dashboard/catalogue", "deposit-removed")
}
