package main

import (
	"strings"
	"testing"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/contract"
)

// The admin CLI sets what the checkout page shows: a merchant's logo (--logo-url; an empty one
// removes it) and a function's display name and image at registration (--display-name, --image-url).
// On a dev data directory http URLs are fine; anything else is refused naming the field.
func TestAdminCLIDisplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir) // running: registering a function checks the contract on the chain
	cli := adminCLI(t, dir)
	logo := "http://127.0.0.1:9/logo.svg"
	m, err := cli("merchants", "create", "--name", "Logo Shop", "--logo-url", logo)
	if err != nil || m["logo_url"] != logo {
		t.Fatalf("create: %v %v", m, err)
	}
	id := m["merchant_id"].(string)
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"merchants", "update", id, "--name", "Logo Shop Ltd"}, logo},
		{[]string{"merchants", "update", id, "--logo-url", "https://cdn.shop.example/l.png"}, "https://cdn.shop.example/l.png"},
		{[]string{"merchants", "get", id}, "https://cdn.shop.example/l.png"},
		{[]string{"merchants", "update", id, "--logo-url", ""}, ""},
	} {
		if v, err := cli(step.args...); err != nil || v["logo_url"] != step.want {
			t.Fatalf("%v: %v %v, want logo_url %q", step.args, v, err, step.want)
		}
	}

	fragment, err := contract.FunctionFragment(devchain.NFTABI(), "mint")
	if err != nil {
		t.Fatal(err)
	}
	register := []string{"contract-functions", "register", id, "--network", dj.Chain.Network, "--address", dj.Contracts.NFT,
		"--abi", string(fragment), "--gas-limit", "300000", "--payable-symbol", "ETH"}
	f, err := cli(append(register, "--display-name", "CLI NFT", "--image-url", "http://127.0.0.1:9/nft.svg")...)
	if err != nil || f["display_name"] != "CLI NFT" || f["image_url"] != "http://127.0.0.1:9/nft.svg" {
		t.Fatalf("register: %v %v", f, err)
	}
	if g, err := cli("contract-functions", "get", id, f["smartContractFunctionId"].(string)); err != nil || g["display_name"] != "CLI NFT" ||
		g["image_url"] != "http://127.0.0.1:9/nft.svg" {
		t.Fatalf("get: %v %v", g, err)
	}

	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"merchants", "create", "--name", "x", "--logo-url", "ftp://cdn.shop.example/l.png"}, "logo_url must be an absolute http(s) URL"},
		{[]string{"merchants", "update", id, "--logo-url", "logo.png"}, "logo_url must be an absolute http(s) URL"},
		{append(register, "--display-name", strings.Repeat("x", 101)), "display_name must be at most 100 characters of text"},
		{append(register, "--image-url", "https://u:p@cdn.shop.example/n.png"), "image_url must not carry credentials"},
	} {
		if _, err := cli(bad.args...); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("admin %v: %v, want an error with %q", bad.args, err, bad.msg)
		}
	}
}
