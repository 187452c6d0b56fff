// Command gosign is the Go side of the TypeScript SDK's cross-check (sdk/js/test): for each
// case read as JSON from stdin it signs the body with client.Sign and verifies the given
// header with client.VerifyWebhook, so that the test can hold the JavaScript verifier to the
// same signatures and the same verdicts. It lives under testdata so that ./... leaves it out.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"log"
	"os"
	"time"

	"github.com/rampway/rampway/client"
)

type testCase struct {
	Secret    string `json:"secret"`
	T         int64  `json:"t"`
	Body      string `json:"body_b64"`
	Header    string `json:"header"`
	Now       int64  `json:"now"`
	Tolerance int64  `json:"tolerance"` // seconds; 0 for the default
}

type result struct {
	Sign   string `json:"sign"`
	Verify string `json:"verify"` // "" when the header verifies, else the error's kind
	Event  string `json:"event"`  // the eventId verified
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		log.Fatal(err)
	}
	out := make([]result, len(cases))
	for i, c := range cases {
		body, err := base64.StdEncoding.DecodeString(c.Body)
		if err != nil {
			log.Fatal(err)
		}
		out[i].Sign = client.Sign(c.Secret, body, time.Unix(c.T, 0))
		v := client.Verifier{Secrets: []string{c.Secret}, Tolerance: time.Duration(c.Tolerance) * time.Second}
		ev, err := v.Verify(body, c.Header, time.Unix(c.Now, 0))
		out[i].Verify = kind(err)
		if ev != nil {
			out[i].Event = ev.ID
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}

// kind names a verification error as the TypeScript SDK's WebhookVerificationError.code does.
func kind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, client.ErrNoSignature):
		return "no_signature"
	case errors.Is(err, client.ErrBadSignature):
		return "bad_signature"
	case errors.Is(err, client.ErrTimestamp):
		return "timestamp"
	case errors.Is(err, client.ErrDuplicate):
		return "duplicate"
	case errors.Is(err, client.ErrBadBody):
		return "bad_body"
	default:
		return "no_secret"
	}
}
