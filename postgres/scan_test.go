package postgres_test

import (
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/storetest"
)

// No statement the store (and the sandbox provider's books) runs needs to read a growing table
// whole on PostgreSQL either: each is planned as prepared statements are after a few runs
// (a generic plan, for any parameters) with sequential scans priced out, and a plan that still
// reads such a table from end to end (a sequential scan, or an index walked without a
// condition and without a LIMIT to stop it) has no index to serve it. The statements are the
// ones the store contract's tests ran (sqlstore.RecordQueries).
//
// Its subtest "store contract" is the store contract suite (storetest.Run), which no other test
// runs: go test -run 'TestNoStatementScansAGrowingTable/store_contract' runs the suite alone.
func TestNoStatementScansAGrowingTable(t *testing.T) {
	pgtest.BaseDSN(t) // without a server: skipped (failed in CI), not "no statement recorded"
	statements := storetest.WorkloadStatements(t, fresh, sqlstore.RecordQueries, "migrations")

	s, err := postgres.Open(t.Context(), pgtest.FreshDSN(t), nil, postgres.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.DB()
	partial := map[string]bool{}
	rows, err := db.QueryContext(t.Context(), `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexdef LIKE '% WHERE %'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		partial[name] = true
	}
	rows.Close()
	for _, q := range []string{`SET enable_seqscan = off`, `SET plan_cache_mode = force_generic_plan`} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}

	planned := 0
	for i, q := range statements {
		plan, err := pgPlan(t, db, i, q)
		if err != nil {
			t.Logf("not planned: %v\n%s", err, q)
			continue
		}
		planned++
		limited := strings.Contains(strings.ToUpper(q), " LIMIT ")
		for j, line := range plan {
			m := pgScanNode.FindStringSubmatch(line)
			if m == nil || strings.Contains(line, "Bitmap Index Scan") { // its heap scan names the table
				continue
			}
			if m == nil {
				continue
			}
			kind, index, table := m[1], m[2], m[3]
			if storetest.SmallTables[table] || partial[index] {
				continue
			}
			conditioned := false
			for _, next := range plan[j+1:] {
				if strings.Contains(next, "->") {
					break
				}
				if strings.Contains(next, "Index Cond:") || strings.Contains(next, "Recheck Cond:") {
					conditioned = true
				}
			}
			if kind == "Seq Scan" || (!conditioned && !(limited && kind != "Bitmap Heap Scan")) {
				t.Errorf("reads %s whole (%s):\n%s\nplan:\n%s", table, strings.TrimSpace(line), strings.TrimSpace(q), strings.Join(plan, "\n"))
			}
		}
	}
	if planned < len(statements)/2 {
		t.Fatalf("only %d of %d statements planned", planned, len(statements))
	}
}

// pgScanNode is a plan node that reads a table: its kind, the index (if any) and the table.
var pgScanNode = regexp.MustCompile(`(Seq Scan|Index Only Scan|Index Scan|Bitmap Heap Scan)(?: Backward)?(?: using (\w+))? on (\w+)`)

var pgParam = regexp.MustCompile(`\$(\d+)`)

// pgPlan returns the generic plan of q, prepared under a name of its own and deallocated.
func pgPlan(t *testing.T, db *sql.DB, i int, q string) ([]string, error) {
	n := 0
	for _, m := range pgParam.FindAllStringSubmatch(q, -1) {
		k, _ := strconv.Atoi(m[1])
		n = max(n, k)
	}
	name := fmt.Sprintf("plan_%d", i)
	if _, err := db.ExecContext(t.Context(), "PREPARE "+name+" AS "+q); err != nil {
		return nil, err
	}
	defer db.ExecContext(t.Context(), "DEALLOCATE "+name)
	args := strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ")
	explain := "EXPLAIN EXECUTE " + name
	if n > 0 {
		explain += "(" + args + ")"
	}
	rows, err := db.QueryContext(t.Context(), explain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		plan = append(plan, line)
	}
	return plan, rows.Err()
}
