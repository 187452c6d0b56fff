package httpapi

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// openAPIDoc is the OpenAPI 3.1 document of every route in routes.go, written with the default
// base paths (openAPIBasePaths). openapi_test.go holds it to routes.go and to the views.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPIBasePaths are the base paths openapi.json is written with: the configuration's
// defaults (config.Default).
var openAPIBasePaths = BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"}

// openAPI returns the handler of GET /openapi.json: the embedded document with its paths moved
// under the configured base paths, built once, here. An embedded document that does not parse
// is a broken build: it panics, so New fails at once rather than serve a broken document.
func (s *Server) openAPI() handlerFunc {
	doc, err := openAPIFor(s.cfg.BasePaths)
	if err != nil {
		panic("httpapi: openapi.json: " + err.Error())
	}
	sum := sha256.Sum256(doc)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return func(w http.ResponseWriter, r *http.Request) error {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc))
		return nil
	}
}

// openAPIFor returns the embedded document, compacted, with the keys of its paths object that
// start with a default base path rewritten to start with bp's instead. Every other member, and
// the order of all of them, stays as written.
func openAPIFor(bp BasePaths) ([]byte, error) {
	top, err := jsonMembers(openAPIDoc)
	if err != nil {
		return nil, err
	}
	var version string
	found := false
	for i, m := range top {
		switch m.key {
		case "openapi":
			if err := json.Unmarshal(m.value, &version); err != nil {
				return nil, fmt.Errorf("openapi: %w", err)
			}
		case "paths":
			paths, err := jsonMembers(m.value)
			if err != nil {
				return nil, fmt.Errorf("paths: %w", err)
			}
			seen := map[string]bool{}
			for j := range paths {
				paths[j].key = rebasePath(paths[j].key, bp)
				if seen[paths[j].key] {
					return nil, fmt.Errorf("paths: %s appears twice with base paths %+v", paths[j].key, bp)
				}
				seen[paths[j].key] = true
			}
			if top[i].value, err = joinMembers(paths); err != nil {
				return nil, err
			}
			found = true
		}
	}
	if !strings.HasPrefix(version, "3.1.") || !found {
		return nil, errors.New("not an OpenAPI 3.1 document with paths")
	}
	raw, err := joinMembers(top)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// rebasePath moves a documented path from its default base path to the configured one.
func rebasePath(path string, bp BasePaths) string {
	for _, p := range [...]struct{ from, to string }{
		{openAPIBasePaths.Mint, bp.Mint}, {openAPIBasePaths.NFTRamp, bp.NFTRamp},
		{openAPIBasePaths.Deposit, bp.Deposit}, {openAPIBasePaths.Admin, bp.Admin},
	} {
		if path == p.from || strings.HasPrefix(path, p.from+"/") {
			return p.to + path[len(p.from):]
		}
	}
	return path
}

// jsonMember is a member of a JSON object, its value as written.
type jsonMember struct {
	key   string
	value json.RawMessage
}

// jsonMembers splits a JSON object into its members, in order.
func jsonMembers(raw []byte) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []jsonMember
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string) // an object's keys are strings: the decoder refuses anything else
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, jsonMember{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// joinMembers writes members back as one JSON object.
func joinMembers(ms []jsonMember) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
