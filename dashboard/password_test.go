package dashboard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rampway/rampway/dashboard"
)

func TestPasswordRoundTrip(t *testing.T) {
	t.Parallel()
	h := dashboard.HashPassword("correct horse battery staple", dashboard.DefaultParams)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q: want the argon2id encoded form with OWASP's costs", h)
	}
	ok, err := dashboard.CheckPassword("correct horse battery staple", h)
	if err != nil || !ok {
		t.Fatalf("the right password: %v, %v", ok, err)
	}
	for _, wrong := range []string{"correct horse battery stapl", "Correct horse battery staple", "", "correct horse battery staple "} {
		if ok, err := dashboard.CheckPassword(wrong, h); err != nil || ok {
			t.Errorf("wrong password %q: %v, %v", wrong, ok, err)
		}
	}
	// Two hashes of one password differ (each has its own salt), and both check.
	h2 := dashboard.HashPassword("correct horse battery staple", dashboard.DefaultParams)
	if h2 == h {
		t.Fatal("two hashes of one password are the same: no salt?")
	}
	if ok, _ := dashboard.CheckPassword("correct horse battery staple", h2); !ok {
		t.Fatal("the second hash does not check")
	}
	// A hash made with other costs is checked with its own.
	cheap := dashboard.HashPassword("pw", dashboard.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	if ok, err := dashboard.CheckPassword("pw", cheap); !ok || err != nil {
		t.Fatalf("a hash of other costs: %v, %v", ok, err)
	}
}

func TestMalformedHash(t *testing.T) {
	t.Parallel()
	good := dashboard.HashPassword("pw", dashboard.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for name, h := range map[string]string{
		"empty":             "",
		"bcrypt":            "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"argon2i":           with(1, "argon2i"),
		"other version":     with(2, "v=16"),
		"no parameters":     with(3, ""),
		"extra parameter":   with(3, "m=64,t=1,p=1,x=2"),
		"huge memory":       with(3, "m=99999999,t=1,p=1"),
		"no time":           with(3, "m=64,t=0,p=1"),
		"salt not base64":   with(4, "!!!!"),
		"hash not base64":   with(5, "!!!!"),
		"short hash":        with(5, "aGFzaA"),
		"missing a part":    strings.Join(parts[:5], "$"),
		"one part too many": good + "$x",
	} {
		ok, err := dashboard.CheckPassword("pw", h)
		if ok || !errors.Is(err, dashboard.ErrMalformedHash) {
			t.Errorf("%s (%q): %v, %v; want ErrMalformedHash", name, h, ok, err)
		}
	}
}

func TestSameToken(t *testing.T) {
	t.Parallel()
	if !dashboard.SameToken("abc", "abc") || dashboard.SameToken("abc", "abd") || dashboard.SameToken("abc", "") ||
		dashboard.SameToken("", "") || dashboard.SameToken("abc", "abcd") {
		t.Fatal("SameToken")
	}
}
