package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const contractFunctionColumns = `id, merchant_id, network, contract_address, abi, signature, default_gas_limit, payable_symbol, status, created_at, updated_at, display_name, image_url`

func scanContractFunction(row interface{ Scan(...any) error }) (*rampway.ContractFunction, error) {
	var (
		f            rampway.ContractFunction
		addr, status string
		gas          int64
		created, upd dbTime
	)
	if err := row.Scan(&f.ID, &f.MerchantID, &f.Network, &addr, &f.ABI, &f.Signature, &gas, &f.PayableSymbol, &status, &created, &upd, &f.DisplayName, &f.ImageURL); err != nil {
		return nil, err
	}
	f.Contract = common.HexToAddress(addr)
	f.DefaultGasLimit = uint64(gas)
	f.Status = rampway.ContractFunctionStatus(status)
	f.CreatedAt, f.UpdatedAt = created.T, upd.T
	return &f, nil
}

// CreateContractFunction implements rampway.ContractFunctionStore.
func (s *Store) CreateContractFunction(ctx context.Context, f *rampway.ContractFunction) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, f.MerchantID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO contract_functions (`+contractFunctionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`),
			f.ID, f.MerchantID, f.Network, f.Contract.Hex(), f.ABI, f.Signature, int64(f.DefaultGasLimit), f.PayableSymbol, string(f.Status),
			s.t(f.CreatedAt), s.t(f.UpdatedAt), f.DisplayName, f.ImageURL)
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "contract function %s already exists", f.ID)
			}
			return fmt.Errorf("insert contract function: %w", err)
		}
		return nil
	})
}

// ContractFunction implements rampway.ContractFunctionStore.
func (s *Store) ContractFunction(ctx context.Context, id string) (*rampway.ContractFunction, error) {
	f, err := scanContractFunction(s.db.QueryRowContext(ctx, s.q(`SELECT `+contractFunctionColumns+` FROM contract_functions WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "contract function")
	}
	return f, nil
}

// ContractFunctions implements rampway.ContractFunctionStore.
func (s *Store) ContractFunctions(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error) {
	return collect(ctx, s.db, "list contract functions", s.q(`SELECT `+contractFunctionColumns+` FROM contract_functions WHERE merchant_id = $1
		ORDER BY created_at, id`), scanContractFunction, merchantID)
}

// SetContractFunctionStatus implements rampway.ContractFunctionStore.
func (s *Store) SetContractFunctionStatus(ctx context.Context, merchantID, id string, st rampway.ContractFunctionStatus, at time.Time) (*rampway.ContractFunction, error) {
	return s.updateContractFunction(ctx, "set contract function status", merchantID, id, `status = $3, updated_at = $4`, string(st), s.t(at))
}

// SetContractFunctionDisplay implements rampway.ContractFunctionStore.
func (s *Store) SetContractFunctionDisplay(ctx context.Context, merchantID, id, displayName, imageURL string, at time.Time) (*rampway.ContractFunction, error) {
	return s.updateContractFunction(ctx, "set contract function display", merchantID, id, `display_name = $3, image_url = $4, updated_at = $5`,
		displayName, imageURL, s.t(at))
}

// updateContractFunction sets columns (an SQL SET list whose parameters start at $3, with
// values) on a merchant's function and returns it. ENOTFOUND.
func (s *Store) updateContractFunction(ctx context.Context, what, merchantID, id, set string, values ...any) (*rampway.ContractFunction, error) {
	var out *rampway.ContractFunction
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE contract_functions SET `+set+` WHERE id = $1 AND merchant_id = $2`),
			append([]any{id, merchantID}, values...)...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		f, err := scanContractFunction(tx.QueryRowContext(ctx, s.q(`SELECT `+contractFunctionColumns+` FROM contract_functions WHERE id = $1 AND merchant_id = $2`), id, merchantID))
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "contract function not found")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		out = f
		return nil
	})
	return out, err
}
