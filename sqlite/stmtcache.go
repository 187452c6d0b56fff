package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"sync/atomic"
)

// maxCachedStmts bounds the statements one connection keeps prepared. The store's statements
// are a few dozen texts; a burst of one-off texts beyond this starts the cache afresh.
const maxCachedStmts = 256

// connector opens connections that keep their prepared statements. SQLite compiles every
// statement text into a program before it runs; the modernc driver does so on each Exec and
// Query, which costs more than many of the store's statements take to run. database/sql's own
// prepared statements would serve too, but the store would have to prepare each text ahead of
// time and re-bind it into every transaction.
type connector struct {
	dsn string
	drv driver.Driver
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	for _, iface := range []bool{
		implements[driver.ConnBeginTx](conn), implements[driver.ConnPrepareContext](conn),
		implements[driver.ExecerContext](conn), implements[driver.QueryerContext](conn),
		implements[driver.Pinger](conn), implements[driver.SessionResetter](conn), implements[driver.Validator](conn),
	} {
		if !iface {
			conn.Close()
			return nil, errors.New("sqlite: the driver's connection lacks an interface the statement cache forwards")
		}
	}
	return &cachingConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c connector) Driver() driver.Driver { return c.drv }

func implements[T any](v any) bool { _, ok := v.(T); return ok }

// cachingConn is a driver connection that runs each statement text through a statement it
// prepared the first time it saw the text. database/sql uses a connection from one goroutine
// at a time, so the cache needs no lock; a statement whose rows are still open (a query run
// again while the first one's rows are read) runs unprepared instead.
type cachingConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

// onPrepare, when set (by the tests), sees every statement text a connection prepares.
var onPrepare atomic.Pointer[func(query string)]

type cachedStmt struct {
	stmt driver.Stmt
	busy bool // its rows are open
}

// stmt returns the prepared statement of query, preparing it if new; nil if it is busy.
func (c *cachingConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		c.closeStmts()
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if f := onPrepare.Load(); f != nil {
		(*f)(query)
	}
	s := &cachedStmt{stmt: st}
	c.stmts[query] = s
	return s, nil
}

func (c *cachingConn) closeStmts() {
	for q, s := range c.stmts {
		if !s.busy {
			s.stmt.Close()
			delete(c.stmts, q)
		}
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	return s.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: rows, s: s}, nil
}

func (c *cachingConn) Close() error {
	for _, s := range c.stmts {
		s.stmt.Close()
	}
	clear(c.stmts)
	return c.Conn.Close()
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *cachingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

// cachedRows frees its statement for the next run when closed.
type cachedRows struct {
	driver.Rows
	s *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.s.busy = false
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
