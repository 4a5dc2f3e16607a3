// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// The interface of subnet-evm's warp precompile (at 0x0200000000000000000000000000000000000005), as contracts call
/// it. Only the members the dev network uses; event and function signatures as the precompile's.
struct WarpMessage {
    bytes32 sourceChainID;
    address originSenderAddress;
    bytes payload;
}

interface IWarpMessenger {
    event SendWarpMessage(address indexed sourceAddress, bytes32 indexed unsignedMessageID, bytes message);

    function sendWarpMessage(bytes calldata payload) external returns (bytes32 messageID);

    function getVerifiedWarpMessage(uint32 index) external view returns (WarpMessage memory message, bool valid);

    function getBlockchainID() external view returns (bytes32 blockchainID);
}
