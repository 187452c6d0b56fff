package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const depositAddressColumns = `merchant_id, network, symbol, address, created_at, updated_at`

func scanDepositAddress(row interface{ Scan(...any) error }) (*rampway.MerchantDepositAddress, error) {
	var (
		a            rampway.MerchantDepositAddress
		addr         string
		created, upd dbTime
	)
	if err := row.Scan(&a.MerchantID, &a.Network, &a.Symbol, &addr, &created, &upd); err != nil {
		return nil, err
	}
	a.Address = common.HexToAddress(addr)
	a.CreatedAt, a.UpdatedAt = created.T, upd.T
	return &a, nil
}

// SetMerchantDepositAddress implements rampway.MerchantDepositAddressStore. On a replacement,
// a.CreatedAt is set to the stored one, which stays.
func (s *Store) SetMerchantDepositAddress(ctx context.Context, a *rampway.MerchantDepositAddress) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, a.MerchantID); err != nil {
			return err
		}
		var created dbTime
		err := tx.QueryRowContext(ctx, s.q(`INSERT INTO merchant_deposit_addresses (`+depositAddressColumns+`) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (merchant_id, network, symbol) DO UPDATE SET address = excluded.address, updated_at = excluded.updated_at
			RETURNING created_at`),
			a.MerchantID, a.Network, a.Symbol, a.Address.Hex(), s.t(a.CreatedAt), s.t(a.UpdatedAt)).Scan(&created)
		if err != nil {
			return fmt.Errorf("set merchant deposit address: %w", err)
		}
		a.CreatedAt = created.T
		return nil
	})
}

// MerchantDepositAddresses implements rampway.MerchantDepositAddressStore.
func (s *Store) MerchantDepositAddresses(ctx context.Context, merchantID string) ([]*rampway.MerchantDepositAddress, error) {
	return collect(ctx, s.db, "list merchant deposit addresses", s.q(`SELECT `+depositAddressColumns+` FROM merchant_deposit_addresses
		WHERE merchant_id = $1 ORDER BY network, symbol`), scanDepositAddress, merchantID)
}

// MerchantDepositAddress implements rampway.MerchantDepositAddressStore.
func (s *Store) MerchantDepositAddress(ctx context.Context, merchantID, network, symbol string) (*rampway.MerchantDepositAddress, error) {
	a, err := scanDepositAddress(s.db.QueryRowContext(ctx, s.q(`SELECT `+depositAddressColumns+` FROM merchant_deposit_addresses
		WHERE merchant_id = $1 AND network = $2 AND symbol = $3`), merchantID, network, symbol))
	if err != nil {
		return nil, notFound(err, "merchant deposit address")
	}
	return a, nil
}

// DeleteMerchantDepositAddress implements rampway.MerchantDepositAddressStore.
func (s *Store) DeleteMerchantDepositAddress(ctx context.Context, merchantID, network, symbol string) error {
	res, err := s.exec(ctx, s.q(`DELETE FROM merchant_deposit_addresses WHERE merchant_id = $1 AND network = $2 AND symbol = $3`),
		merchantID, network, symbol)
	if err != nil {
		return fmt.Errorf("delete merchant deposit address: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete merchant deposit address: %w", err)
	} else if n == 0 {
		return rampway.Errorf(rampway.ENOTFOUND, "merchant deposit address not found")
	}
	return nil
}
