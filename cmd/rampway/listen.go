package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
)

// Environment of `rampway listen`: the merchant's API key, and the secret the forwarded
// deliveries are signed with.
const (
	EnvListenAPIKey = "RAMPWAY_API_KEY"
	EnvListenSecret = "RAMPWAY_WEBHOOK_SECRET"
)

// listenStreamPath is the server's stream of a merchant's deliveries (httpapi routeListen).
const listenStreamPath = "/merchant/webhook-events/stream"

const listenUsage = `Usage: rampway listen --forward-to URL [--server URL] [--data-dir D]
  Receives your merchant's webhook deliveries from a rampway server as they are made (a
  server-sent event stream authenticated by your API key) and posts each, signed, to URL:
  test your webhook handler on a laptop, without a public URL. One line per delivery with the
  local answer. Ctrl-C stops it.

  Against rampway dev (the default): the server, API key and webhook secret come from
  D/dev.json. Against another server: --server (its base URL), the API key in env
  RAMPWAY_API_KEY, and the secret to sign with in env RAMPWAY_WEBHOOK_SECRET (your merchant's
  of the key's mode, so that your handler verifies as in production); without it a new one is
  made and printed. The stream carries the events of the key's mode only: an rw_test_ key's
  test orders, an rw_live_ key's live ones.

Flags:
`

// runListen is `rampway listen`.
func runListen(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(stdout)
	forward := fs.String("forward-to", "", "the local URL each delivery is posted to (required)")
	server := fs.String("server", "", "the rampway server's base URL (default: rampway dev's, from D/dev.json)")
	dataDir := fs.String("data-dir", ".rampway-dev", "the running rampway dev's data directory (its dev.json)")
	fs.Usage = func() { fmt.Fprint(stdout, listenUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *forward == "" {
		fs.Usage()
		return errors.New("listen: --forward-to is required")
	}
	if u, err := url.Parse(*forward); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("listen: --forward-to must be an http(s) URL, not %q", *forward)
	}
	base, key, secret := strings.TrimRight(*server, "/"), getenv(EnvListenAPIKey), getenv(EnvListenSecret)
	if base == "" {
		raw, err := os.ReadFile(filepath.Join(*dataDir, devJSONFile))
		if err != nil {
			return fmt.Errorf("listen: no --server, and no rampway dev running on %s: %w", *dataDir, err)
		}
		var dj devJSON
		if err := json.Unmarshal(raw, &dj); err != nil {
			return fmt.Errorf("listen: %s: %w", devJSONFile, err)
		}
		u, err := url.Parse(dj.API.MintBaseURL)
		if err != nil {
			return fmt.Errorf("listen: %s: api.mint_base_url: %w", devJSONFile, err)
		}
		base = u.Scheme + "://" + u.Host
		if key == "" {
			key = dj.Merchant.APIKey
		}
		if secret == "" {
			secret = dj.Merchant.WebhookSecret
		}
	}
	if key == "" {
		return fmt.Errorf("listen: set %s to your merchant API key", EnvListenAPIKey)
	}
	if secret == "" {
		var b [24]byte
		_, _ = rand.Read(b[:])
		secret = "whsec_" + hex.EncodeToString(b[:])
		fmt.Fprintf(stdout, "No %s: deliveries are signed with %s (give it to your handler)\n", EnvListenSecret, secret)
	}
	l := &listener{base: base, key: key, secret: secret, forward: *forward, out: stdout,
		stream: &http.Client{}, post: &http.Client{Timeout: 10 * time.Second}}
	return l.run(ctx)
}

// listener reads the stream and forwards its deliveries.
type listener struct {
	base, key, secret, forward string
	out                        io.Writer
	stream, post               *http.Client
	lastID                     string
}

// run reads the stream until ctx ends, reconnecting (from the last id) after a failure with a
// growing pause; a refused API key ends it.
func (l *listener) run(ctx context.Context) error {
	wait := time.Second
	for {
		connected, err := l.once(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var fatal *listenFatal
		if errors.As(err, &fatal) {
			return fmt.Errorf("listen: %w", err)
		}
		if connected {
			wait = time.Second
		}
		fmt.Fprintf(l.out, "%s  stream lost (%v): reconnecting in %v\n", stamp(), err, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// listenFatal is an answer that reconnecting cannot mend (a refused key).
type listenFatal struct{ msg string }

func (e *listenFatal) Error() string { return e.msg }

// once reads one connection of the stream; connected says it was opened.
func (l *listener) once(ctx context.Context) (connected bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.base+listenStreamPath, nil)
	if err != nil {
		return false, &listenFatal{err.Error()}
	}
	req.Header.Set("X-API-KEY", l.key)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", "rampway-listen/"+version)
	if l.lastID != "" {
		req.Header.Set("Last-Event-ID", l.lastID)
	}
	res, err := l.stream.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var env struct {
			Message string `json:"message"`
		}
		data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = json.Unmarshal(data, &env)
		msg := fmt.Sprintf("%s answered %d: %s", l.base, res.StatusCode, env.Message)
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusNotFound {
			return false, &listenFatal{msg}
		}
		return false, errors.New(msg)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var (
		event, id string
		data      [][]byte
	)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0: // the end of an event
			if id != "" {
				l.lastID = id
			}
			switch event {
			case "ready":
				// The stream is the key's mode's: say which, so a test key's silence about live
				// orders surprises nobody.
				var ready struct {
					Livemode bool `json:"livemode"`
				}
				_ = json.Unmarshal(bytes.Join(data, []byte("\n")), &ready)
				fmt.Fprintf(l.out, "%s  ready: forwarding the %s-mode deliveries of %s to %s\n", stamp(), rampway.ModeName(ready.Livemode), l.base, l.forward)
			case "delivery":
				l.deliver(ctx, bytes.Join(data, []byte("\n")))
			}
			event, id, data = "", "", nil
		case line[0] == ':': // a comment: keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				event = string(value)
			case "id":
				id = string(value)
			case "data":
				data = append(data, bytes.Clone(value))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	return true, io.ErrUnexpectedEOF
}

// deliver posts one delivery's body, signed, and prints a line with the answer.
func (l *listener) deliver(ctx context.Context, body []byte) {
	var ev struct {
		ID      string `json:"eventId"`
		Name    string `json:"eventName"`
		Context struct {
			OrderID string `json:"order_id"`
		} `json:"context"`
	}
	_ = json.Unmarshal(body, &ev)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forward, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "rampway-listen/"+version)
	req.Header.Set(client.SignatureHeader, client.Sign(l.secret, body, time.Now()))
	start := time.Now()
	res, err := l.post.Do(req)
	answer := ""
	if err != nil {
		answer = "failed: " + err.Error()
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
		res.Body.Close()
		answer = res.Status
	}
	fmt.Fprintf(l.out, "%s  %-32s %s  %s  -> %s (%v)\n", stamp(), ev.Name, ev.Context.OrderID, ev.ID, answer, time.Since(start).Round(time.Millisecond))
}

func stamp() string { return time.Now().Format("15:04:05") }
