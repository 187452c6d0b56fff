// Package provider is the registry of payment-provider modules, after Caddy's: each provider
// package registers itself from its init function (provider.Register), and the configuration,
// the wiring and the checkout page iterate the registry. Adding a provider is one new package
// under provider/ and one blank import in provider/all; no other package names it.
//
// A module is what a provider can do (its methods, its settings, its widget on the checkout
// page, its routes and admin operations); an instance is one configured use of a module under a
// name of its own (fiat.providers[].name), so that a module may be configured more than once
// (two accounts of one provider, or the sandbox under two names). Every payment records the
// instance that holds it, and every action and notification of the payment goes to and comes
// from that instance.
package provider

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rampway/rampway"
)

// Module is a payment provider's registration.
type Module struct {
	// Name is the module's name, the fiat.providers[].module of the configuration (and the
	// instance's name when the configuration gives none).
	Name string
	// Methods are the payment methods the module can take (rampway.Method*): an instance
	// takes these or, when configured, a subset.
	Methods []string
	// Options are the names of the settings an instance takes from the file
	// (fiat.providers[].options, never secrets); any other is refused.
	Options []string
	// Check validates an instance's settings: bad reports each problem with the setting it is
	// about (an option name, or the environment variable). Nil checks nothing.
	Check func(s Settings, bad func(setting, format string, args ...any))
	// Livemode is the mode an instance serves: false for test data only, true for real money.
	// Nil serves test mode only.
	Livemode func(s Settings) bool
	// TestOnly says that the module never serves live mode (its Livemode is always false) and
	// must not take real money: it is allowed in production for test-mode orders only, with a
	// warning at start.
	TestOnly bool
	// New builds an instance. It may check that the provider can be reached (a bad key is an
	// error at start, not at the first payment).
	New func(ctx context.Context, s Settings, d Deps) (Instance, error)
	// Widget is the module's payment element on the checkout page, when it has one.
	Widget *Widget
	// DevDefault makes the module the one `rampway dev` configures when the configuration
	// names no provider (one module at most: a test-only one).
	DevDefault bool
	// Dev is what `rampway dev` writes to dev.json's "fiat" for the module (its test data).
	Dev *Dev
}

// Dev is a module's test data for the dev-mode contract.
type Dev struct {
	// TestCards are dev.json's fiat.test_cards: success, decline, three_ds.
	TestCards map[string]string
}

// Settings are one instance's settings.
type Settings struct {
	// Name is the instance's name: unique, the {name} of /providers/{name}/..., recorded on
	// every payment the instance holds.
	Name string
	// Module is the module's name.
	Module string
	// Options are the instance's module options from the configuration file (fiat.providers[].options).
	Options map[string]string
	// PublicURL is rampway's public URL (the instance's pages are under
	// PublicURL/providers/{name}/).
	PublicURL string
	// Dev is dev mode: test settings (a local API URL) may be taken.
	Dev bool
	// Secret is a secret of this installation, derived for the instance, to key what the
	// instance signs for itself (an in-process provider's notifications).
	Secret []byte
	// Getenv reads the environment (os.Getenv outside tests).
	Getenv func(string) string
}

// EnvName is the environment variable an instance reads for a key (secrets come from the
// environment only, never from the file):
// RAMPWAY_<NAME>_<KEY>, the name upper-cased with - as _.
func (s Settings) EnvName(key string) string {
	return "RAMPWAY_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_")) + "_" + key
}

// Env reads one of the instance's environment variables.
func (s Settings) Env(key string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(s.EnvName(key))
}

// Deps are what an instance may use of rampway.
type Deps struct {
	// Books is the database an instance may keep its own books in.
	Books Books
	// Log logs for the instance.
	Log *slog.Logger
	// Now is the clock (time.Now outside tests).
	Now func() time.Time
}

// Books is rampway's database as a provider keeps its own books in it (the tables of its
// migrations): queries are written with $1, $2 placeholders and rewritten for the dialect by Q.
type Books interface {
	// DB is for reads.
	DB() *sql.DB
	// WriteTx runs fn in a transaction and Write runs one statement: writes go through these,
	// which keep a one-writer database's (SQLite's) writers in turn.
	WriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error
	Write(ctx context.Context, query string, args ...any) (sql.Result, error)
	// Q rewrites a query's placeholders for the database.
	Q(query string) string
	// Time is a time as the database stores it (an argument).
	Time(t time.Time) any
	// ScanTime scans a stored time into t.
	ScanTime(t *time.Time) sql.Scanner
	// IsUniqueViolation reports whether err is a unique constraint's refusal.
	IsUniqueViolation(err error) bool
}

// Instance is a configured provider: rampway.FiatProvider, and optionally Router, Runner,
// AdminOps and rampway.FormFirst.
type Instance interface {
	rampway.FiatProvider
}

// Router is an instance with pages or routes of its own, served under /providers/{name}/.
type Router interface {
	// Routes are the patterns the handler serves ("GET /providers/{name}/pay/{id}/{step}").
	Routes() []string
	Handler() http.Handler
}

// Runner is an instance with work of its own to run while rampway runs (an in-process
// provider sending its notifications).
type Runner interface {
	Run(ctx context.Context, interval time.Duration, onErr func(error))
}

// AdminOps is an instance with operations for the operator: each is POST
// {admin}/{name}/{Path} on the admin API and `rampway admin {name} {CLI}` on the command line.
type AdminOps interface {
	AdminOps() []AdminOp
}

// AdminOp is an operator's operation on an instance: a JSON body of string fields, all
// required, and an answer.
type AdminOp struct {
	// Path is the route under {admin}/{name}/, "bank-transfers".
	Path string
	// CLI is the command's name, "bank-transfer", and Help its line in the usage.
	CLI, Help string
	// Fields are the body's fields (and the command's flags), each required.
	Fields []string
	// Do runs the operation: its answer is the 201's body.
	Do func(ctx context.Context, fields map[string]string) (any, error)
}

// Widget is a module's payment element on the checkout page: the provider's own script mounts
// a form in the page (card data goes to the provider, never to rampway) when a payment's next
// action is of Kind.
type Widget struct {
	// Kind is the rampway.NextAction kind the widget serves ("stripe_element").
	Kind string
	// Template is an html/template that defines "widget": rendered in the page's payment step
	// with a WidgetData. It may call the page's "t" (translations).
	Template string
	// Script is the widget's own script, served by rampway (same origin) and loaded after
	// the provider's.
	Script []byte
	// Scripts are the provider's scripts, loaded from its origin.
	Scripts []string
	// CSP are the origins the page's Content-Security-Policy allows for it.
	CSP CSP
}

// CSP names origins per directive.
type CSP struct {
	Script, Connect, Frame []string
}

// WidgetData is what a widget's template is rendered with.
type WidgetData struct {
	// Meta is the payment's next action's metadata (what the provider answered at start).
	Meta map[string]string
	// Amount is the amount to pay, as the page shows it ("€42.17").
	Amount string
	// ReturnURL is the page, where the provider sends the user back.
	ReturnURL string
	// ScriptURL is the widget's own script's URL.
	ScriptURL string
}

var (
	mu      sync.RWMutex
	modules = map[string]Module{}
)

// nameRE is what module and instance names may be: they are path segments and environment
// variable parts.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// ValidName reports whether s may name a module or an instance.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// Register adds a module; it panics on a bad or duplicate registration (a programming error,
// found at init).
func Register(m Module) {
	mu.Lock()
	defer mu.Unlock()
	switch {
	case !ValidName(m.Name):
		panic(fmt.Sprintf("provider: bad module name %q", m.Name))
	case m.New == nil:
		panic(fmt.Sprintf("provider: module %s has no New", m.Name))
	case len(m.Methods) == 0:
		panic(fmt.Sprintf("provider: module %s takes no method", m.Name))
	}
	if _, ok := modules[m.Name]; ok {
		panic(fmt.Sprintf("provider: module %s registered twice", m.Name))
	}
	for _, id := range m.Methods {
		if rampway.MethodFlow(id) == "" {
			panic(fmt.Sprintf("provider: module %s: method %q has no flow in the domain (rampway.MethodFlow)", m.Name, id))
		}
	}
	m.Methods = slices.Clone(m.Methods)
	modules[m.Name] = m
}

// Lookup returns a registered module.
func Lookup(name string) (Module, bool) {
	mu.RLock()
	defer mu.RUnlock()
	m, ok := modules[name]
	return m, ok
}

// Names are the registered modules' names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(modules))
	for n := range modules {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Modules are the registered modules, by name.
func Modules() []Module {
	var out []Module
	for _, n := range Names() {
		m, _ := Lookup(n)
		out = append(out, m)
	}
	return out
}

// Widgets are the registered modules' widgets, by the next-action kind they serve.
func Widgets() map[string]*Widget {
	out := map[string]*Widget{}
	for _, m := range Modules() {
		if m.Widget != nil {
			out[m.Widget.Kind] = m.Widget
		}
	}
	return out
}

// Livemode is the mode an instance of m serves.
func (m Module) LivemodeOf(s Settings) bool {
	if m.TestOnly || m.Livemode == nil {
		return false
	}
	return m.Livemode(s)
}
