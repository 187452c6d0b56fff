package sqlite_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// No statement the store (and the sandbox provider's books) runs reads a growing table whole:
// every one finds its rows through an index, so its cost stays flat as a merchant's database
// grows to millions of orders. The statements are the ones the store contract's tests prepared,
// as the service prepares them (SQLite plans a statement when it is prepared); a new statement
// that scans is named here with its plan.
//
// Its subtest "store contract" is the store contract suite (storetest.Run), which no other test
// runs: go test -run 'TestNoStatementScansAGrowingTable/store_contract' runs the suite alone.
func TestNoStatementScansAGrowingTable(t *testing.T) {
	statements := storetest.WorkloadStatements(t, fresh, sqlite.RecordStatements, "migrations")

	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "plans.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tables, partial := map[string]bool{}, map[string]bool{}
	rows, err := s.DB().QueryContext(t.Context(), `SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE type IN ('table', 'index')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ, name, def string
		if err := rows.Scan(&typ, &name, &def); err != nil {
			t.Fatal(err)
		}
		if typ == "table" {
			tables[name] = true
		} else if strings.Contains(strings.ToUpper(def), " WHERE ") {
			partial[name] = true
		}
	}
	rows.Close()

	var dump *os.File
	if path := os.Getenv("RAMPWAY_PLANS"); path != "" { // every statement with its plan, to read
		if dump, err = os.Create(path); err != nil {
			t.Fatal(err)
		}
		defer dump.Close()
	}
	for _, q := range statements {
		plan, err := explain(t, s, q)
		if err != nil {
			if dump != nil {
				fmt.Fprintf(dump, "%s\n  !! %v\n\n", storetest.Normalize(q), err)
			}
			continue // not a query of the store's schema (PRAGMAs, the migrations' own)
		}
		if dump != nil {
			fmt.Fprintf(dump, "%s\n  => %s\n\n", storetest.Normalize(q), strings.Join(plan, " | "))
		}
		aliases := tableAliases(q)
		sorts := slices.ContainsFunc(plan, func(step string) bool { return strings.HasPrefix(step, "USE TEMP B-TREE FOR ORDER BY") })
		limited := strings.Contains(strings.ToUpper(q), " LIMIT ")
		for _, step := range plan {
			if m := searchStep.FindStringSubmatch(step); m != nil {
				table := m[1]
				if real, ok := aliases[table]; ok {
					table = real
				}
				if tables[table] && !storetest.SmallTables[table] && !partial[m[2]] && (sorts || !limited) && broadOnly(m[3]) {
					t.Errorf("reads all of %s of a %s (%s):\n%s\nplan: %s", table, m[3], step, strings.TrimSpace(q), strings.Join(plan, " | "))
				}
				continue
			}
			m := scanStep.FindStringSubmatch(step)
			if m == nil {
				continue
			}
			table := m[1]
			if real, ok := aliases[table]; ok {
				table = real
			}
			if !tables[table] || storetest.SmallTables[table] || (m[3] != "" && partial[m[3]]) {
				continue
			}
			t.Errorf("reads %s whole (%s):\n%s\nplan: %s", table, step, strings.TrimSpace(q), strings.Join(plan, " | "))
		}
	}
}

// scanStep is a step of a plan that reads a table or an index from its start: the table (or
// its alias), then the index it walks, if any.
var scanStep = regexp.MustCompile(`^SCAN (\w+)( USING (?:COVERING )?INDEX (\w+))?`)

var numberedParam = regexp.MustCompile(`\?(\d+)`)

// searchStep is a step that finds its rows by an index: the table, the index, its constraints.
var searchStep = regexp.MustCompile(`^SEARCH (\w+) USING (?:COVERING )?INDEX (\w+) \(([^)]*)\)`)

// broadColumns are the columns whose one value many of a growing table's rows share.
var broadColumns = map[string]bool{"network": true, "provider": true, "livemode": true, "merchant_id": true, "area": true}

// broadOnly reports whether an index search is constrained by broad columns only: it reads every
// row of a network, a merchant, a mode (and sorts them, or reads them all for lack of a LIMIT).
func broadOnly(constraints string) bool {
	for _, c := range strings.Split(constraints, " AND ") {
		col := strings.TrimRight(c, "=<>?")
		if !broadColumns[col] {
			return false
		}
	}
	return true
}

var aliasClause = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?`)

// tableAliases maps each alias in q's FROM and JOIN clauses to its table.
func tableAliases(q string) map[string]string {
	out := map[string]string{}
	for _, m := range aliasClause.FindAllStringSubmatch(q, -1) {
		switch strings.ToUpper(m[2]) {
		case "", "WHERE", "JOIN", "LEFT", "INNER", "ON", "ORDER", "GROUP", "LIMIT", "INDEXED", "NOT", "USING", "SET", "UNION", "CROSS":
			continue
		}
		out[m[2]] = m[1]
	}
	return out
}

func explain(t *testing.T, s interface{ DB() *sql.DB }, q string) ([]string, error) {
	// Every parameter bound (to NULL: a plan is made before values are known, but for LIMIT).
	n := strings.Count(q, "?")
	for _, m := range numberedParam.FindAllStringSubmatch(q, -1) {
		i, _ := strconv.Atoi(m[1])
		n = max(n, i)
	}
	rows, err := s.DB().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, make([]any, n)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		steps = append(steps, detail)
	}
	return steps, rows.Err()
}
