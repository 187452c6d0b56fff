package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"
)

// The statement cache gives the same answers as unprepared statements: a text run again while
// its first rows are open, in a transaction and out of one, more texts than the cache holds, a
// script of several statements, and an error that leaves the statement usable.
func TestStatementCache(t *testing.T) {
	db, err := OpenDB(t.Context(), filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every statement on the one connection and its cache
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE u (k INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := db.ExecContext(ctx, `INSERT INTO t (k, v) VALUES (?, ?)`, i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t (k, v) VALUES (?, ?)`, 1, "dup"); err == nil {
		t.Fatal("a duplicate key was inserted")
	}
	// The statement that failed runs again (and is deleted at once: the rest expects 5 rows).
	if _, err := db.ExecContext(ctx, `INSERT INTO t (k, v) VALUES (?, ?)`, 99, "after"); err != nil {
		t.Fatalf("the statement after its failure: %v", err)
	}
	if res, err := db.ExecContext(ctx, `DELETE FROM t WHERE k = ?`, 99); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("deleted %d rows, want 1", n)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT k, v FROM t WHERE k >= ? ORDER BY k`
	outer, err := tx.QueryContext(ctx, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var k int
		var v string
		if err := outer.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		// The same text while the outer rows are open: must not disturb them.
		var n int
		inner, err := tx.QueryContext(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		for inner.Next() {
			n++
		}
		inner.Close()
		got = append(got, fmt.Sprintf("%d:%s:%d", k, v, n))
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if want := "[0:v0:5 1:v1:4 2:v2:3 3:v3:2 4:v4:1]"; fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	// More distinct texts than the cache keeps: all answer right.
	for i := range maxCachedStmts + 10 {
		var v string
		if err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT v FROM t WHERE k = ? AND %d = %d`, i, i), i%5).Scan(&v); err != nil || v != fmt.Sprint("v", i%5) {
			t.Fatalf("text %d: %q, %v", i, v, err)
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("count %d, %v", n, err)
	}
}
