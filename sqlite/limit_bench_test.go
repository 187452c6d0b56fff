package sqlite

import (
	"path/filepath"
	"testing"
)

// BenchmarkBoundLimit shows why the store writes a bound LIMIT as (?N + 0) (sqlstore's q): a
// statement with LIMIT ?N is prepared again at every run, even from the statement cache.
//
//	go test -run='^$' -bench=BoundLimit ./sqlite
func BenchmarkBoundLimit(b *testing.B) {
	db, err := OpenDB(b.Context(), filepath.Join(b.TempDir(), "l.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(b.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a'), ('b')`); err != nil {
		b.Fatal(err)
	}
	for name, q := range map[string]string{
		"limit=param":      `SELECT id FROM t WHERE id > ?1 ORDER BY id LIMIT ?2`,
		"limit=expression": `SELECT id FROM t WHERE id > ?1 ORDER BY id LIMIT (?2 + 0)`,
	} {
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				rows, err := db.QueryContext(b.Context(), q, -i, 10)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}
}
