package sqlstore

import "testing"

func TestNumberedQuestion(t *testing.T) {
	s := &Store{d: Dialect{NumberedQuestion: true}, queries: make(map[string]string)}
	for _, tt := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)`, `INSERT INTO t (a, b) VALUES (?, ?), (?, ?)`}, // in order: plain
		{`UPDATE t SET a = $2 WHERE id = $1`, `UPDATE t SET a = ?2 WHERE id = ?1`},                       // out of order: numbered
		{`SELECT $1 WHERE a = $1`, `SELECT ?1 WHERE a = ?1`},                                             // repeated: numbered
		{`SELECT $1, $3`, `SELECT ?1, ?3`},                                                               // a gap: numbered
		{`SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11`, `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`},
		// A bound LIMIT or OFFSET as an expression: SQLite prepares a statement again at every
		// run when LIMIT is a plain parameter.
		{`SELECT a FROM t WHERE b = $1 ORDER BY a LIMIT $2`, `SELECT a FROM t WHERE b = ? ORDER BY a LIMIT (? + 0)`},
		{`SELECT a FROM t WHERE b = $2 ORDER BY a limit $1 OFFSET $3`, `SELECT a FROM t WHERE b = ?2 ORDER BY a limit (?1 + 0) OFFSET (?3 + 0)`},
		{`SELECT a FROM t ORDER BY a LIMIT 10`, `SELECT a FROM t ORDER BY a LIMIT 10`},
	} {
		for range 2 { // the second time from the cache
			if got := s.q(tt.in); got != tt.want {
				t.Errorf("q(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
	s.d.NumberedQuestion = false
	if got := s.q(`SELECT $1`); got != `SELECT $1` {
		t.Errorf("PostgreSQL form changed: %q", got)
	}
}
