package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

func TestDecodeNestedFieldPath(t *testing.T) {
	t.Parallel()
	var dst struct {
		ContractExecution struct {
			NetworkParams struct {
				NetworkName string `json:"networkName"`
			} `json:"network_params"`
			FunctionArgs map[string]any `json:"function_args"`
		} `json:"contractExecution"`
	}
	for _, tc := range []struct{ body, msg, field string }{
		{`{"contractExecution":{"network_params":{"networkName":3}}}`, "Field 'contractExecution.network_params.networkName' must be a string, not a number", "contractExecution.network_params.networkName"},
		{`{"contractExecution":{"function_args":[1]}}`, "Field 'contractExecution.function_args' must be an object, not an array", "contractExecution.function_args"},
		{`{"contractExecution":"x"}`, "Field 'contractExecution' must be an object, not a string", "contractExecution"},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		err := decodeJSON(r, &dst, decodeOptions{})
		var e *rampway.Error
		if !errors.As(err, &e) || e.Message != tc.msg || e.Field != tc.field || e.Code != rampway.EINVALID {
			t.Errorf("%s: got %v, want %q", tc.body, err, tc.msg)
		}
	}
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"contractExecution":{},"extra":1}`))
	if err := decodeJSON(r, &dst, decodeOptions{strict: true}); rampway.ErrorMessage(err) != "Unknown field 'extra'" {
		t.Errorf("strict: %v", err)
	}
	r = httptest.NewRequest("POST", "/", strings.NewReader(""))
	if err := decodeJSON(r, &dst, decodeOptions{optional: true}); err != nil {
		t.Errorf("optional empty body: %v", err)
	}
}

func TestPosition(t *testing.T) {
	t.Parallel()
	body := []byte("ab\ncde\nf")
	for _, tc := range []struct {
		off       int64
		line, col int
	}{{1, 1, 1}, {2, 1, 2}, {4, 2, 1}, {6, 2, 3}, {8, 3, 1}, {99, 3, 1}} {
		if l, c := position(body, tc.off); l != tc.line || c != tc.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}

// Invalid function arguments answer HTTP 400 with statusCode 403 in the body, as the spec shows.
func TestFunctionArgsErrorStatus(t *testing.T) {
	t.Parallel()
	s := &Server{}
	rec := httptest.NewRecorder()
	msg := "Function arguments are not valid: 2 arguments required, 1 given"
	s.writeError(rec, httptest.NewRequest("POST", "/nft-ramp/merchant/hosted/nftCheckout/order", nil), rampway.Errorf(rampway.EFUNCARGS, "%s", msg))
	r := resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	wantEnvelope(t, r, 400, 403, "/nft-ramp/merchant/hosted/nftCheckout/order", msg)
}

// The user_* fields B1 and C1 share (an embedded struct) are named by their JSON name alone.
func TestDecodeEmbeddedUserFields(t *testing.T) {
	t.Parallel()
	for _, dst := range []any{&fiatOrderBody{}, &depositOrderBody{}} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(`{"user_dob":5}`))
		err := decodeJSON(r, dst, decodeOptions{})
		var e *rampway.Error
		if !errors.As(err, &e) || e.Field != "user_dob" || e.Message != "Field 'user_dob' must be a string, not a number" {
			t.Errorf("%T: %v", dst, err)
		}
	}
	var b depositOrderBody
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"user_countryCode":"DE","order_fiat_amount":"10"}`))
	if err := decodeJSON(r, &b, decodeOptions{}); err != nil || b.user()["user_countryCode"] != "DE" || *b.OrderFiatAmount != "10" {
		t.Fatalf("decoded %+v, %v", b, err)
	}
}
