// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IWarpMessenger} from "./IWarp.sol";

/// A P-chain owner as ACP-77's messages carry it (threshold, then addresses).
struct PChainOwner {
    uint32 threshold;
    address[] addresses;
}

/// The dev L1's validator manager (the contract its ConvertSubnetToL1Tx names): a proof-of-authority manager that,
/// as ava-labs' ValidatorManager (icm-contracts, `validator-manager/ValidatorManager.sol` and `ValidatorMessages.sol`)
/// does, builds ACP-77's P-chain messages and sends them through the warp precompile, whose SendWarpMessage log a
/// relayer takes to the signature aggregator and then, signed, to the P-chain in a RegisterL1ValidatorTx or a
/// SetL1ValidatorWeightTx. Only its owner may ask. The dev network installs its runtime code at its address with
/// anvil_setCode (as a genesis predeploy would put it there), the owner in slot 0 and the subnet ID in slot 1.
///
/// Messages (codec 0): RegisterL1ValidatorMessage = u16 0 ‖ u32 1 ‖ subnetID ‖ u32 len ‖ nodeID ‖ 48-byte BLS
/// key ‖ u64 expiry ‖ remaining-balance owner ‖ disable owner ‖ u64 weight (an owner: u32 threshold ‖ u32 n ‖ n
/// addresses); its validation ID is its SHA-256. L1ValidatorWeightMessage = u16 0 ‖ u32 3 ‖ validationID ‖ u64
/// nonce ‖ u64 weight, the nonce counting the validator's weight messages from 1.
contract DevValidatorManager {
    IWarpMessenger private constant WARP = IWarpMessenger(0x0200000000000000000000000000000000000005);

    address public owner;
    bytes32 public subnetID;
    mapping(bytes32 validationID => uint64 nonce) public sentNonce;

    event InitiatedValidatorRegistration(
        bytes32 indexed validationID,
        bytes20 indexed nodeID,
        bytes32 registrationMessageID,
        uint64 registrationExpiry,
        uint64 weight
    );
    event InitiatedValidatorWeightUpdate(
        bytes32 indexed validationID, uint64 nonce, bytes32 weightUpdateMessageID, uint64 weight
    );

    modifier onlyOwner() {
        require(msg.sender == owner, "DevValidatorManager: not the owner");
        _;
    }

    function initiateValidatorRegistration(
        bytes calldata nodeID,
        bytes calldata blsPublicKey,
        uint64 expiry,
        PChainOwner calldata remainingBalanceOwner,
        PChainOwner calldata disableOwner,
        uint64 weight
    ) external onlyOwner returns (bytes32 validationID) {
        require(nodeID.length == 20, "DevValidatorManager: a node ID is 20 bytes");
        require(blsPublicKey.length == 48, "DevValidatorManager: a BLS public key is 48 bytes");
        require(weight > 0, "DevValidatorManager: zero weight");
        bytes memory message = abi.encodePacked(
            uint16(0), uint32(1), subnetID, uint32(nodeID.length), nodeID, blsPublicKey, expiry,
            _owner(remainingBalanceOwner), _owner(disableOwner), weight
        );
        validationID = sha256(message);
        bytes32 messageID = WARP.sendWarpMessage(message);
        emit InitiatedValidatorRegistration(validationID, bytes20(nodeID), messageID, expiry, weight);
    }

    function initiateValidatorWeightUpdate(bytes32 validationID, uint64 weight)
        external
        onlyOwner
        returns (uint64 nonce, bytes32 messageID)
    {
        nonce = ++sentNonce[validationID];
        messageID = WARP.sendWarpMessage(abi.encodePacked(uint16(0), uint32(3), validationID, nonce, weight));
        emit InitiatedValidatorWeightUpdate(validationID, nonce, messageID, weight);
    }

    function _owner(PChainOwner calldata o) private pure returns (bytes memory b) {
        b = abi.encodePacked(o.threshold, uint32(o.addresses.length));
        for (uint256 i = 0; i < o.addresses.length; i++) b = abi.encodePacked(b, o.addresses[i]);
    }
}
