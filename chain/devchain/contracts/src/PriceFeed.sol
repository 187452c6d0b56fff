// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title PriceFeed
/// @notice A Chainlink AggregatorV3Interface-compatible price feed whose answer the owner sets.
///         Every setAnswer starts a new round stamped with the block's timestamp.
contract PriceFeed is Ownable {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 private immutable _decimals;
    string private _description;
    uint80 private _latestRound;
    mapping(uint80 => Round) private _rounds;

    /// @notice Emitted like Chainlink's AnswerUpdated on every new round.
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) Ownable(msg.sender) {
        _decimals = decimals_;
        _description = description_;
        _setAnswer(initialAnswer);
    }

    /// @notice Number of decimals of the answer (8 for ETH / USD).
    function decimals() external view returns (uint8) {
        return _decimals;
    }

    /// @notice Human-readable pair, e.g. "ETH / USD".
    function description() external view returns (string memory) {
        return _description;
    }

    /// @notice Version of the aggregator interface.
    function version() external pure returns (uint256) {
        return 4;
    }

    /// @notice Starts a new round with `answer`, stamped with block.timestamp.
    function setAnswer(int256 answer) external onlyOwner {
        _setAnswer(answer);
    }

    /// @notice Data of round `roundId`; reverts with "No data present" for an unknown round.
    function getRoundData(uint80 roundId)
        external
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory r = _rounds[roundId];
        require(r.updatedAt != 0, "No data present");
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    /// @notice Data of the latest round.
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        roundId = _latestRound;
        Round memory r = _rounds[roundId];
        return (roundId, r.answer, r.startedAt, r.updatedAt, roundId);
    }

    /// @notice Answer of the latest round (legacy AggregatorInterface).
    function latestAnswer() external view returns (int256) {
        return _rounds[_latestRound].answer;
    }

    /// @notice Id of the latest round (legacy AggregatorInterface).
    function latestRound() external view returns (uint256) {
        return _latestRound;
    }

    function _setAnswer(int256 answer) private {
        uint80 id = _latestRound + 1;
        _latestRound = id;
        _rounds[id] = Round({answer: answer, startedAt: block.timestamp, updatedAt: block.timestamp});
        emit AnswerUpdated(answer, id, block.timestamp);
    }
}
