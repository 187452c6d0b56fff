// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DemoToken
/// @notice "Demo USD" (DUSD), the stable token of the rampway dev chain. 6 decimals, like USDC.
///         Only the owner (the dev chain's deployer) can mint.
contract DemoToken is ERC20, Ownable {
    constructor() ERC20("Demo USD", "DUSD") Ownable(msg.sender) {}

    /// @notice 6 decimals: 1 DUSD = 1_000_000 base units.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Creates `amount` base units for `to`.
    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
