package rampway_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

func TestCheckImageURL(t *testing.T) {
	long := "https://cdn.example/" + strings.Repeat("a", rampway.MaxImageURLLen-len("https://cdn.example/"))
	for _, tc := range []struct {
		name, url string
		dev       bool
		msg       string // "" for valid
	}{
		{"none", "", false, ""},
		{"https", "https://cdn.example/logo.svg?v=2#x", false, ""},
		{"https with port", "https://cdn.example:8443/logo.png", false, ""},
		{"IP address", "https://203.0.113.7/logo.png", false, ""},
		{"IPv6 address", "https://[2001:db8::1]/logo.png", false, ""},
		{"punycode", "https://xn--bcher-kva.example/logo.png", false, ""},
		{"longest", long, false, ""},
		{"http in dev", "http://127.0.0.1:8080/demo/assets/logo.svg", true, ""},
		{"http in production", "http://cdn.example/logo.svg", false, "image_url must be an absolute https URL of at most 2048 characters"},
		{"too long", long + "a", false, "image_url must be an absolute https URL of at most 2048 characters"},
		{"relative", "/logo.svg", false, "must be an absolute https URL"},
		{"no host", "https:///logo.svg", false, "must be an absolute https URL"},
		{"opaque", "https:cdn.example/logo.svg", false, "must be an absolute https URL"},
		{"data", "data:image/png;base64,AAAA", false, "must be an absolute https URL"},
		{"javascript", "javascript:alert(1)", true, "image_url must be an absolute http(s) URL of at most 2048 characters"},
		{"ftp in dev", "ftp://cdn.example/logo.svg", true, "must be an absolute http(s) URL"},
		{"space", "https://cdn.example/my logo.svg", false, "must be an absolute https URL"},
		{"newline", "https://cdn.example/logo.svg\n", false, "must be an absolute https URL"},
		{"unicode", "https://bücher.example/logo.svg", false, "must be an absolute https URL"},
		{"credentials", "https://u:p@cdn.example/logo.svg", false, "image_url must not carry credentials"},
		{"CSP syntax in host", "https://cdn.example;script-src/logo.svg", false, "image_url must name its host"},
		{"quote in host", "https://cdn'example/logo.svg", false, "must name its host"},
		{"bad label", "https://-cdn.example/logo.svg", false, "must name its host"},
		{"empty label", "https://cdn..example/logo.svg", false, "must name its host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := rampway.CheckImageURL("image_url", tc.url, tc.dev)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *rampway.Error
			if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != "image_url" || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("error %v, want EINVALID on image_url containing %q", err, tc.msg)
			}
		})
	}
}

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		in, want, msg string
	}{
		{"", "", ""},
		{"  Demo NFT \t", "Demo NFT", ""},
		{"Édition № 1 — 🎟", "Édition № 1 — 🎟", ""},
		{strings.Repeat("é", 100), strings.Repeat("é", 100), ""},
		{strings.Repeat("é", 101), "", "display_name must be at most 100 characters of text"},
		{"a\x00b", "", "display_name must not contain control characters"},
		{"a\u202eb", "", "display_name must not contain control characters"}, // right-to-left override
		{"a\u200db", "a\u200db", ""},                                         // a zero-width joiner (emoji sequences) is text
		{"\xff", "", "display_name must be at most 100 characters of text"},
	} {
		got, err := rampway.CheckText("display_name", tc.in, 100)
		if tc.msg == "" {
			if err != nil || got != tc.want {
				t.Errorf("CheckText(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		var e *rampway.Error
		if !errors.As(err, &e) || e.Field != "display_name" || e.Message != tc.msg {
			t.Errorf("CheckText(%q): %v, want %q", tc.in, err, tc.msg)
		}
	}
}
