// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IWarpMessenger, WarpMessage} from "./IWarp.sol";

/// A TEST-ONLY stand-in for subnet-evm's warp precompile, for an EVM (anvil) that has no such precompile. The dev
/// network puts its runtime code at 0x0200000000000000000000000000000000000005 with anvil_setCode and calls
/// init(networkID, blockchainID) once.
///
/// - sendWarpMessage logs the unsigned warp message exactly as the precompile does: codec 0 (u16) ‖ network ID (u32)
///   ‖ source chain ID (32 bytes) ‖ u32 length ‖ AddressedCall payload (codec 0 (u16), type ID 1 (u32), the
///   sender's 20-byte address as u32-length bytes, the payload as u32-length bytes); its ID is the SHA-256 of those
///   bytes.
/// - getVerifiedWarpMessage(index) returns the message a relayer handed to deliver(index, ...) before.
///
/// IT VERIFIES NOTHING. The real precompile reads the signed message from the transaction's access list and checks
/// its BLS aggregate signature against the source subnet's validator set (with the quorum) before returning it as
/// valid. Here anyone can deliver any message: the signature bytes after the unsigned message are ignored, only the
/// message's shape and network ID are checked. Never use this outside a development or test chain.
contract WarpStandIn is IWarpMessenger {
    uint32 public networkID;
    bytes32 private _blockchainID;
    mapping(uint32 index => WarpMessage message) private _delivered;

    /// Sets the network ID and this chain's blockchain ID (once: a second call reverts).
    function init(uint32 networkID_, bytes32 blockchainID_) external {
        require(_blockchainID == bytes32(0), "WarpStandIn: already initialised");
        require(blockchainID_ != bytes32(0), "WarpStandIn: zero blockchain ID");
        networkID = networkID_;
        _blockchainID = blockchainID_;
    }

    function getBlockchainID() external view returns (bytes32) {
        return _blockchainID;
    }

    function sendWarpMessage(bytes calldata payload) external returns (bytes32) {
        require(_blockchainID != bytes32(0), "WarpStandIn: not initialised");
        bytes memory addressedCall = abi.encodePacked(
            uint16(0), uint32(1), uint32(20), msg.sender, uint32(payload.length), payload
        );
        bytes memory unsignedMessage = abi.encodePacked(
            uint16(0), networkID, _blockchainID, uint32(addressedCall.length), addressedCall
        );
        bytes32 id = sha256(unsignedMessage);
        emit SendWarpMessage(msg.sender, id, unsignedMessage);
        return id;
    }

    /// Stores a warp message (unsigned, or signed: anything after the unsigned message is ignored) for
    /// getVerifiedWarpMessage(index). It must be of this network and carry an AddressedCall with a 20-byte address.
    function deliver(uint32 index, bytes calldata warpMessage) external {
        require(_blockchainID != bytes32(0), "WarpStandIn: not initialised");
        require(warpMessage.length >= 42, "WarpStandIn: short message");
        require(_u16(warpMessage, 0) == 0, "WarpStandIn: bad codec");
        require(_u32(warpMessage, 2) == networkID, "WarpStandIn: wrong network ID");
        bytes32 sourceChainID = bytes32(warpMessage[6:38]);
        uint256 callLength = _u32(warpMessage, 38);
        require(warpMessage.length >= 42 + callLength, "WarpStandIn: short payload");
        bytes calldata call_ = warpMessage[42:42 + callLength];
        require(call_.length >= 30, "WarpStandIn: short AddressedCall");
        require(_u16(call_, 0) == 0 && _u32(call_, 2) == 1, "WarpStandIn: not an AddressedCall");
        require(_u32(call_, 6) == 20, "WarpStandIn: source address is not 20 bytes");
        address origin = address(bytes20(call_[10:30]));
        uint256 payloadLength = _u32(call_, 30);
        require(call_.length == 34 + payloadLength, "WarpStandIn: bad AddressedCall length");
        _delivered[index] = WarpMessage(sourceChainID, origin, call_[34:]);
    }

    function getVerifiedWarpMessage(uint32 index) external view returns (WarpMessage memory message, bool valid) {
        message = _delivered[index];
        valid = message.sourceChainID != bytes32(0);
    }

    function _u16(bytes calldata b, uint256 at) private pure returns (uint256) {
        return uint256(uint16(bytes2(b[at:at + 2])));
    }

    function _u32(bytes calldata b, uint256 at) private pure returns (uint256) {
        require(b.length >= at + 4, "WarpStandIn: short message");
        return uint256(uint32(bytes4(b[at:at + 4])));
    }
}
