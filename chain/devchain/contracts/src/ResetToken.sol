// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title ResetToken
/// @notice An ERC-20 whose approve, like USDT's on Ethereum, reverts when it would change a
///         non-zero allowance to another non-zero one: an allowance goes back to 0 first.
///         Tests deploy it; the dev chain does not. 6 decimals; only the owner mints.
contract ResetToken is ERC20, Ownable {
    constructor() ERC20("Reset USD", "RUSD") Ownable(msg.sender) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Creates `amount` base units for `to`.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice ERC-20 approve, refused from a non-zero allowance to a non-zero one.
    function approve(address spender, uint256 value) public override returns (bool) {
        require(value == 0 || allowance(msg.sender, spender) == 0, "ResetToken: reset the allowance to 0 first");
        return super.approve(spender, value);
    }
}
