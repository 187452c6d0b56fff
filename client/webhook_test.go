package client_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
)

const (
	testSecret  = "whsec_testsecretaaaaaaaaaaaaaaaaaaaaaaa"
	otherSecret = "whsec_othersecretbbbbbbbbbbbbbbbbbbbbbb"
	testBody    = `{"eventId":"evt_01","timestamp":"2026-11-21T16:40:00.123Z","eventName":"order.success","context":{"order_id":"ord_01"}}`
)

var testT = time.Date(2026, 11, 21, 16, 40, 1, 0, time.UTC)

// v1 returns the v1 part of a header made by Sign.
func v1(tb testing.TB, header string) string {
	tb.Helper()
	_, sig, ok := strings.Cut(header, ",")
	if !ok || !strings.HasPrefix(sig, "v1=") {
		tb.Fatalf("Sign returned %q", header)
	}
	return sig
}

func TestSign(t *testing.T) {
	got := client.Sign(testSecret, []byte(testBody), testT)
	if !strings.HasPrefix(got, fmt.Sprintf("t=%d,v1=", testT.Unix())) || len(got) != len("t=1795279201,v1=")+64 {
		t.Fatalf("Sign = %q", got)
	}
	if strings.ToLower(got) != got {
		t.Fatalf("Sign = %q, want lowercase hex", got)
	}
	// Sub-second parts of t are dropped: t is whole seconds.
	if again := client.Sign(testSecret, []byte(testBody), testT.Add(999*time.Millisecond)); again != got {
		t.Fatalf("Sign at t+0.999s = %q, want %q", again, got)
	}
}

func TestVerifyWebhook(t *testing.T) {
	body := []byte(testBody)
	good := client.Sign(testSecret, body, testT)
	goodV1 := v1(t, good)
	otherV1 := v1(t, client.Sign(otherSecret, body, testT))
	ts := fmt.Sprint(testT.Unix())
	tests := []struct {
		name    string
		secret  string
		body    string
		header  string
		now     time.Time
		wantErr error // nil: accepted
	}{
		{name: "valid", header: good},
		{name: "parts reordered", header: goodV1 + ",t=" + ts},
		{name: "spaces", header: " t = " + ts + " , " + strings.Replace(goodV1, "=", " = ", 1) + " "},
		{name: "trailing comma", header: good + ","},
		{name: "several v1, last matches", header: "t=" + ts + "," + otherV1 + "," + goodV1},
		{name: "several v1, first matches", header: "t=" + ts + "," + goodV1 + "," + otherV1},
		{name: "unknown schemes ignored", header: "v0=abc,t=" + ts + ",v2=zz," + goodV1},
		{name: "uppercase hex", header: "t=" + ts + ",v1=" + strings.ToUpper(goodV1[3:])},
		{name: "malformed v1 next to a good one", header: good + ",v1=nothex"},
		{name: "wrong secret", secret: otherSecret, header: good, wantErr: client.ErrBadSignature},
		{name: "only other secrets' v1", header: "t=" + ts + "," + otherV1, wantErr: client.ErrBadSignature},
		{name: "tampered body", body: strings.Replace(testBody, "order.success", "order.failed", 1), header: good, wantErr: client.ErrBadSignature},
		{name: "body with a trailing newline", body: testBody + "\n", header: good, wantErr: client.ErrBadSignature},
		{name: "tampered t", header: "t=" + fmt.Sprint(testT.Unix()+1) + "," + goodV1, wantErr: client.ErrBadSignature},
		{name: "missing header", header: "", wantErr: client.ErrNoSignature},
		{name: "blank header", header: "   ", wantErr: client.ErrNoSignature},
		{name: "no v1", header: "t=" + ts, wantErr: client.ErrNoSignature},
		{name: "only v0", header: "t=" + ts + ",v0=" + goodV1[3:], wantErr: client.ErrNoSignature},
		{name: "no t", header: goodV1, wantErr: client.ErrBadSignature},
		{name: "two t", header: "t=" + ts + ",t=" + ts + "," + goodV1, wantErr: client.ErrBadSignature},
		{name: "t not a number", header: "t=abc," + goodV1, wantErr: client.ErrBadSignature},
		{name: "t negative", header: "t=-" + ts + "," + goodV1, wantErr: client.ErrBadSignature},
		{name: "t in milliseconds", header: "t=" + fmt.Sprint(testT.UnixMilli()) + "," + goodV1, wantErr: client.ErrBadSignature},
		{name: "part without =", header: "t=" + ts + ",garbage," + goodV1, wantErr: client.ErrBadSignature},
		{name: "v1 not hex", header: "t=" + ts + ",v1=xyz", wantErr: client.ErrBadSignature},
		{name: "v1 too short", header: "t=" + ts + ",v1=" + goodV1[3:40], wantErr: client.ErrBadSignature},
		{name: "v1 too long", header: "t=" + ts + ",v1=" + goodV1[3:] + "00", wantErr: client.ErrBadSignature},
		{name: "t too old", header: good, now: testT.Add(5*time.Minute + time.Second), wantErr: client.ErrTimestamp},
		{name: "t too old by 1ns", header: good, now: testT.Add(5*time.Minute + 1), wantErr: client.ErrTimestamp},
		{name: "t exactly at tolerance, past", header: good, now: testT.Add(5 * time.Minute)},
		{name: "t too new", header: good, now: testT.Add(-5*time.Minute - time.Second), wantErr: client.ErrTimestamp},
		{name: "t exactly at tolerance, future", header: good, now: testT.Add(-5 * time.Minute)},
		{name: "t a day old", header: good, now: testT.Add(24 * time.Hour), wantErr: client.ErrTimestamp},
		{name: "bad signature wins over old t", header: "t=" + ts + "," + otherV1, now: testT.Add(time.Hour), wantErr: client.ErrBadSignature},
		{name: "body not JSON", body: "not json", wantErr: client.ErrBadBody},
		{name: "body a JSON array", body: "[]", wantErr: client.ErrBadBody},
		{name: "body null", body: "null", wantErr: client.ErrBadBody},
		{name: "no eventId", body: `{"eventName":"order.success","context":{}}`, wantErr: client.ErrBadBody},
		{name: "no eventName", body: `{"eventId":"evt_01","context":{}}`, wantErr: client.ErrBadBody},
		{name: "timestamp not a time", body: `{"eventId":"evt_01","eventName":"order.success","timestamp":"yesterday"}`, wantErr: client.ErrBadBody},
		{name: "unknown envelope fields are fine", body: `{"eventId":"evt_01","eventName":"order.success","apiVersion":"2"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret, body, now := tt.secret, tt.body, tt.now
			if secret == "" {
				secret = testSecret
			}
			header := tt.header
			if body == "" {
				body = testBody
			} else if header == "" && tt.wantErr != client.ErrNoSignature {
				header = client.Sign(testSecret, []byte(body), testT) // a body signed as is
			}
			if now.IsZero() {
				now = testT
			}
			ev, err := client.VerifyWebhook(secret, []byte(body), header, now)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("VerifyWebhook: %v", err)
				}
				if ev == nil || ev.ID != "evt_01" || ev.Name != "order.success" {
					t.Fatalf("event = %+v", ev)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("VerifyWebhook error = %v, want %v", err, tt.wantErr)
			}
			if ev != nil {
				t.Fatalf("VerifyWebhook returned an event with error %v", err)
			}
			for _, other := range []error{client.ErrNoSignature, client.ErrBadSignature, client.ErrTimestamp, client.ErrBadBody, client.ErrDuplicate} {
				if other != tt.wantErr && errors.Is(err, other) {
					t.Fatalf("error %v is also %v", err, other)
				}
			}
		})
	}
}

func TestVerifyWebhookParsesEnvelope(t *testing.T) {
	ev, err := client.VerifyWebhook(testSecret, []byte(testBody), client.Sign(testSecret, []byte(testBody), testT), testT)
	if err != nil {
		t.Fatal(err)
	}
	wantTS := time.Date(2026, 11, 21, 16, 40, 0, 123e6, time.UTC)
	if ev.ID != "evt_01" || ev.Name != client.EventOrderSuccess || !ev.Timestamp.Equal(wantTS) ||
		string(ev.Context) != `{"order_id":"ord_01"}` {
		t.Fatalf("event = %+v", ev)
	}
}

func TestVerifyWebhookRefusesEmptySecret(t *testing.T) {
	body := []byte(testBody)
	// Anyone can sign with the empty key: it must never verify.
	for _, secrets := range [][]string{nil, {}, {""}, {"", ""}} {
		v := client.Verifier{Secrets: secrets}
		ev, err := v.Verify(body, client.Sign("", body, testT), testT)
		if err == nil || ev != nil {
			t.Fatalf("Verify with secrets %q = %v, %v; want an error", secrets, ev, err)
		}
	}
	if _, err := client.VerifyWebhook("", body, client.Sign("", body, testT), testT); err == nil {
		t.Fatal("VerifyWebhook with an empty secret accepted a delivery")
	}
}

func TestVerifierSecretRotation(t *testing.T) {
	body := []byte(testBody)
	ts := fmt.Sprint(testT.Unix())
	oldV1, newV1 := v1(t, client.Sign(otherSecret, body, testT)), v1(t, client.Sign(testSecret, body, testT))
	tests := []struct {
		name    string
		secrets []string
		header  string
		ok      bool
	}{
		{"rampway rotating, receiver on the old secret", []string{otherSecret}, "t=" + ts + "," + newV1 + "," + oldV1, true},
		{"rampway rotating, receiver on the new secret", []string{testSecret}, "t=" + ts + "," + newV1 + "," + oldV1, true},
		{"receiver rotating, delivery signed with the new secret", []string{otherSecret, testSecret}, "t=" + ts + "," + newV1, true},
		{"receiver rotating, delivery signed with the old secret", []string{otherSecret, testSecret}, "t=" + ts + "," + oldV1, true},
		{"empty secrets ignored", []string{"", testSecret}, "t=" + ts + "," + newV1, true},
		{"neither secret", []string{"whsec_a", "whsec_b"}, "t=" + ts + "," + newV1 + "," + oldV1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := client.Verifier{Secrets: tt.secrets}
			_, err := v.Verify(body, tt.header, testT)
			if tt.ok && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !tt.ok && !errors.Is(err, client.ErrBadSignature) {
				t.Fatalf("Verify error = %v, want ErrBadSignature", err)
			}
		})
	}
}

func TestVerifierTolerance(t *testing.T) {
	body := []byte(testBody)
	header := client.Sign(testSecret, body, testT)
	tests := []struct {
		name      string
		tolerance time.Duration
		age       time.Duration
		ok        bool
	}{
		{"default accepts 5m", 0, 5 * time.Minute, true},
		{"default refuses 5m1s", 0, 5*time.Minute + time.Second, false},
		{"negative means default", -time.Second, 5 * time.Minute, true},
		{"30s accepts 30s", 30 * time.Second, 30 * time.Second, true},
		{"30s refuses 31s", 30 * time.Second, 31 * time.Second, false},
		{"30s refuses 31s ahead", 30 * time.Second, -31 * time.Second, false},
		{"1h accepts 59m", time.Hour, 59 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := client.Verifier{Secrets: []string{testSecret}, Tolerance: tt.tolerance}
			_, err := v.Verify(body, header, testT.Add(tt.age))
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, client.ErrTimestamp)) {
				t.Fatalf("Verify at age %s: %v", tt.age, err)
			}
		})
	}
}

func TestVerifierDuplicates(t *testing.T) {
	body := []byte(testBody)
	v := client.Verifier{Secrets: []string{testSecret}, Seen: client.NewMemoryDeduper(time.Hour)}

	// A delivery that fails verification is not recorded.
	if _, err := v.Verify(body, client.Sign(otherSecret, body, testT), testT); !errors.Is(err, client.ErrBadSignature) {
		t.Fatalf("bad signature: %v", err)
	}
	if _, err := v.Verify(body, client.Sign(testSecret, body, testT.Add(-time.Hour)), testT); !errors.Is(err, client.ErrTimestamp) {
		t.Fatalf("old t: %v", err)
	}

	if _, err := v.Verify(body, client.Sign(testSecret, body, testT), testT); err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	// A retry: same body, new t. A duplicate comes back with its event.
	later := testT.Add(10 * time.Minute)
	ev, err := v.Verify(body, client.Sign(testSecret, body, later), later)
	if !errors.Is(err, client.ErrDuplicate) || ev == nil || ev.ID != "evt_01" {
		t.Fatalf("retry = %v, %v; want the event and ErrDuplicate", ev, err)
	}
	// A replay of the first delivery within the tolerance.
	if _, err := v.Verify(body, client.Sign(testSecret, body, testT), testT.Add(time.Minute)); !errors.Is(err, client.ErrDuplicate) {
		t.Fatalf("replay: %v", err)
	}
	// Another event is not a duplicate.
	other := []byte(strings.Replace(testBody, "evt_01", "evt_02", 1))
	if _, err := v.Verify(other, client.Sign(testSecret, other, later), later); err != nil {
		t.Fatalf("other event: %v", err)
	}
	// Forgotten: processed again.
	v.Seen.Forget("evt_01")
	if _, err := v.Verify(body, client.Sign(testSecret, body, later), later); err != nil {
		t.Fatalf("after Forget: %v", err)
	}
}
