// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title DemoNFT
/// @notice The demo ERC-721 of the rampway dev chain: paid mints in the native coin (mint,
///         mintIds) or in an ERC-20 (mintWithToken, after approve), a free mint, and a supply cap
///         the owner can lower so that tests can make minting revert. Reverts carry readable
///         strings ("DemoNFT: wrong payment", "DemoNFT: sold out", ...).
contract DemoNFT is ERC721, Ownable {
    using SafeERC20 for IERC20;

    /// @notice Price of one token in wei (native coin).
    uint256 public immutable price;
    /// @notice ERC-20 accepted by mintWithToken (address(0): token payments disabled).
    IERC20 public immutable paymentToken;
    /// @notice Price of one token in base units of paymentToken.
    uint256 public immutable tokenPrice;
    /// @notice Most tokens that can ever be minted.
    uint256 public maxSupply;

    uint256 private _minted;
    uint256 private _nextId = 1;

    /// @notice Emitted once per mint call; the ERC-721 Transfer events carry the ids.
    event Minted(address indexed payer, address indexed to, uint256 quantity, uint256 paid, address currency);

    constructor(
        string memory name_,
        string memory symbol_,
        uint256 priceWei,
        address paymentToken_,
        uint256 tokenPrice_,
        uint256 maxSupply_
    ) ERC721(name_, symbol_) Ownable(msg.sender) {
        price = priceWei;
        paymentToken = IERC20(paymentToken_);
        tokenPrice = tokenPrice_;
        maxSupply = maxSupply_;
    }

    /// @notice Mints `quantity` tokens with sequential ids to `to`; msg.value must be
    ///         price * quantity exactly.
    function mint(address to, uint256 quantity) external payable {
        require(msg.value == price * quantity, "DemoNFT: wrong payment");
        _mintSequential(to, quantity);
        emit Minted(msg.sender, to, quantity, msg.value, address(0));
    }

    /// @notice Mints exactly the token ids `ids` to `to`; msg.value must be price * ids.length.
    function mintIds(address to, uint256[] calldata ids) external payable {
        require(msg.value == price * ids.length, "DemoNFT: wrong payment");
        _reserve(to, ids.length);
        for (uint256 i = 0; i < ids.length; i++) {
            require(_ownerOf(ids[i]) == address(0), "DemoNFT: token already minted");
            _mint(to, ids[i]);
        }
        emit Minted(msg.sender, to, ids.length, msg.value, address(0));
    }

    /// @notice Mints `quantity` tokens to `to`, paid with tokenPrice * quantity of paymentToken
    ///         pulled from msg.sender (which must have approved this contract).
    function mintWithToken(address to, uint256 quantity) external {
        require(address(paymentToken) != address(0), "DemoNFT: token payments disabled");
        uint256 amount = tokenPrice * quantity;
        _mintSequential(to, quantity);
        paymentToken.safeTransferFrom(msg.sender, address(this), amount);
        emit Minted(msg.sender, to, quantity, amount, address(paymentToken));
    }

    /// @notice Mints `quantity` tokens to `to` without payment (still capped by maxSupply).
    function freeMint(address to, uint256 quantity) external {
        _mintSequential(to, quantity);
        emit Minted(msg.sender, to, quantity, 0, address(0));
    }

    /// @notice Number of tokens minted so far.
    function totalMinted() external view returns (uint256) {
        return _minted;
    }

    /// @notice Sets the supply cap; it cannot go below totalMinted().
    function setMaxSupply(uint256 newMaxSupply) external onlyOwner {
        require(newMaxSupply >= _minted, "DemoNFT: below minted");
        maxSupply = newMaxSupply;
    }

    /// @notice Sends the whole native-coin and paymentToken balances of this contract to `to`.
    function withdraw(address payable to) external onlyOwner {
        require(to != address(0), "DemoNFT: zero address");
        if (address(paymentToken) != address(0)) {
            uint256 tokens = paymentToken.balanceOf(address(this));
            if (tokens > 0) {
                paymentToken.safeTransfer(to, tokens);
            }
        }
        uint256 balance = address(this).balance;
        if (balance > 0) {
            (bool ok,) = to.call{value: balance}("");
            require(ok, "DemoNFT: withdraw failed");
        }
    }

    function _reserve(address to, uint256 quantity) private {
        require(to != address(0), "DemoNFT: mint to the zero address");
        require(quantity > 0, "DemoNFT: zero quantity");
        require(_minted + quantity <= maxSupply, "DemoNFT: sold out");
        _minted += quantity;
    }

    function _mintSequential(address to, uint256 quantity) private {
        _reserve(to, quantity);
        uint256 id = _nextId;
        for (uint256 i = 0; i < quantity; i++) {
            while (_ownerOf(id) != address(0)) {
                id++; // skip ids taken by mintIds
            }
            _mint(to, id);
            id++;
        }
        _nextId = id;
    }
}
