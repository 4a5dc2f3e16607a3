// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {IWarpMessenger, WarpMessage} from "./IWarp.sol";

// The ABI types of TeleporterMessenger v1.0.0 (ava-labs/icm-contracts): same names, fields and order, so the events
// have the same signatures (topic0) and the messages the same encoding.
struct TeleporterMessageReceipt {
    uint256 receivedMessageNonce;
    address relayerRewardAddress;
}

struct TeleporterFeeInfo {
    address feeTokenAddress;
    uint256 amount;
}

struct TeleporterMessageInput {
    bytes32 destinationBlockchainID;
    address destinationAddress;
    TeleporterFeeInfo feeInfo;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    bytes message;
}

struct TeleporterMessage {
    uint256 messageNonce;
    address originSenderAddress;
    bytes32 destinationBlockchainID;
    address destinationAddress;
    uint256 requiredGasLimit;
    address[] allowedRelayerAddresses;
    TeleporterMessageReceipt[] receipts;
    bytes message;
}

/// What a message's destination contract implements.
interface ITeleporterReceiver {
    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message) external;
}

interface IFeeToken {
    function balanceOf(address account) external view returns (uint256);
}

/// The dev network's interchain messenger, written for this project: the external interface, events, message ID
/// formula and rules of TeleporterMessenger v1.0.0, deployed (with anvil_setCode) at its address on each dev EVM.
/// It has no constructor and no immutables, so its runtime code works at any address: every stored value starts at
/// zero (the blockchain ID is read from the warp precompile on first use).
///
/// - A message ID is keccak256(abi.encode(this, sourceBlockchainID, destinationBlockchainID, nonce)), with one
///   nonce counter for all destinations starting at 1.
/// - A send attaches up to 5 receipts of messages received from the destination chain (oldest first), takes the fee
///   with the token's transferFrom (the amount counted is what the balance grew by), and submits
///   abi.encode(message) to the warp precompile.
/// - A receive reads getVerifiedWarpMessage(index), accepts only messages sent by this same address and meant for
///   this chain, once each, from an allowed relayer; pays out the receipts it carries (ReceiptReceived), queues a
///   receipt for the source, then calls receiveTeleporterMessage with requiredGasLimit gas; a failed call (or a
///   destination without code) emits MessageExecutionFailed and can be retried by anyone with
///   retryMessageExecution.
contract IcmMessenger {
    IWarpMessenger public constant WARP_MESSENGER = IWarpMessenger(0x0200000000000000000000000000000000000005);
    uint256 private constant RECEIPTS_PER_MESSAGE = 5;

    event BlockchainIDInitialized(bytes32 indexed blockchainID);
    event SendCrossChainMessage(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, TeleporterMessage message, TeleporterFeeInfo feeInfo);
    event AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo);
    event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message);
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event ReceiveCrossChainMessage(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, address indexed deliverer, address rewardRedeemer, TeleporterMessage message);
    event ReceiptReceived(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address indexed relayerRewardAddress, TeleporterFeeInfo feeInfo);
    event RelayerRewardsRedeemed(address indexed redeemer, address indexed asset, uint256 amount);

    struct SentMessageInfo {
        bytes32 messageHash;
        TeleporterFeeInfo feeInfo;
    }

    /// Receipts waiting to go back to a chain: items[first..last).
    struct ReceiptQueue {
        uint256 first;
        uint256 last;
        mapping(uint256 => TeleporterMessageReceipt) items;
    }

    bytes32 public blockchainID;
    uint256 public messageNonce;
    mapping(bytes32 blockchain => ReceiptQueue) public receiptQueues;
    mapping(bytes32 messageID => SentMessageInfo) public sentMessageInfo;
    mapping(bytes32 messageID => bytes32 messageHash) public receivedFailedMessageHashes;
    mapping(bytes32 messageID => uint256 nonce) private _receivedNonce;
    mapping(bytes32 messageID => address rewardAddress) private _rewardAddress;
    mapping(address relayer => mapping(address token => uint256 amount)) private _rewards;
    // Re-entrancy locks: false when free, so that no constructor has to set them.
    bool private _sendLocked;
    bool private _receiveLocked;

    modifier sendLock() {
        require(!_sendLocked, "ReentrancyGuards: sender reentrancy");
        _sendLocked = true;
        _;
        _sendLocked = false;
    }

    modifier receiveLock() {
        require(!_receiveLocked, "ReentrancyGuards: receiver reentrancy");
        _receiveLocked = true;
        _;
        _receiveLocked = false;
    }

    // ---- sending ----

    function sendCrossChainMessage(TeleporterMessageInput calldata messageInput) external sendLock returns (bytes32) {
        ReceiptQueue storage q = receiptQueues[messageInput.destinationBlockchainID];
        uint256 n = q.last - q.first;
        if (n > RECEIPTS_PER_MESSAGE) n = RECEIPTS_PER_MESSAGE;
        TeleporterMessageReceipt[] memory receipts = new TeleporterMessageReceipt[](n);
        for (uint256 i = 0; i < n; i++) {
            receipts[i] = q.items[q.first];
            delete q.items[q.first];
            q.first++;
        }
        return _send(
            messageInput.destinationBlockchainID,
            messageInput.destinationAddress,
            messageInput.feeInfo,
            messageInput.requiredGasLimit,
            messageInput.allowedRelayerAddresses,
            messageInput.message,
            receipts
        );
    }

    function retrySendCrossChainMessage(TeleporterMessage calldata message) external sendLock {
        bytes32 id = calculateMessageID(blockchainID, message.destinationBlockchainID, message.messageNonce);
        SentMessageInfo memory info = sentMessageInfo[id];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        bytes memory encoded = abi.encode(message);
        require(keccak256(encoded) == info.messageHash, "TeleporterMessenger: invalid message hash");
        emit SendCrossChainMessage(id, message.destinationBlockchainID, message, info.feeInfo);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    function addFeeAmount(bytes32 messageID, address feeTokenAddress, uint256 additionalFeeAmount) external sendLock receiveLock {
        require(additionalFeeAmount > 0, "TeleporterMessenger: zero additional fee amount");
        require(feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
        SentMessageInfo storage info = sentMessageInfo[messageID];
        require(info.messageHash != bytes32(0), "TeleporterMessenger: message not found");
        require(info.feeInfo.feeTokenAddress == feeTokenAddress, "TeleporterMessenger: invalid fee asset contract address");
        info.feeInfo.amount += _pullFee(feeTokenAddress, additionalFeeAmount);
        emit AddFeeAmount(messageID, info.feeInfo);
    }

    function sendSpecifiedReceipts(
        bytes32 sourceBlockchainID,
        bytes32[] calldata messageIDs,
        TeleporterFeeInfo calldata feeInfo,
        address[] calldata allowedRelayerAddresses
    ) external sendLock returns (bytes32) {
        TeleporterMessageReceipt[] memory receipts = new TeleporterMessageReceipt[](messageIDs.length);
        for (uint256 i = 0; i < messageIDs.length; i++) {
            bytes32 id = messageIDs[i];
            uint256 nonce = _receivedNonce[id];
            require(nonce != 0, "TeleporterMessenger: receipt not found");
            require(id == calculateMessageID(sourceBlockchainID, blockchainID, nonce), "TeleporterMessenger: message ID not from source blockchain");
            receipts[i] = TeleporterMessageReceipt(nonce, _rewardAddress[id]);
        }
        return _send(sourceBlockchainID, address(0), feeInfo, 0, allowedRelayerAddresses, "", receipts);
    }

    function _send(
        bytes32 destination,
        address destinationAddress,
        TeleporterFeeInfo calldata feeInfo,
        uint256 requiredGasLimit,
        address[] calldata allowedRelayers,
        bytes memory payload,
        TeleporterMessageReceipt[] memory receipts
    ) private returns (bytes32 id) {
        bytes32 here = initializeBlockchainID();
        uint256 nonce = ++messageNonce;
        id = calculateMessageID(here, destination, nonce);
        TeleporterMessage memory m = TeleporterMessage(
            nonce, msg.sender, destination, destinationAddress, requiredGasLimit, allowedRelayers, receipts, payload
        );
        bytes memory encoded = abi.encode(m);
        uint256 taken = 0;
        if (feeInfo.amount > 0) {
            require(feeInfo.feeTokenAddress != address(0), "TeleporterMessenger: zero fee asset contract address");
            taken = _pullFee(feeInfo.feeTokenAddress, feeInfo.amount);
        }
        TeleporterFeeInfo memory fee = TeleporterFeeInfo(feeInfo.feeTokenAddress, taken);
        sentMessageInfo[id] = SentMessageInfo(keccak256(encoded), fee);
        emit SendCrossChainMessage(id, destination, m, fee);
        WARP_MESSENGER.sendWarpMessage(encoded);
    }

    /// transferFrom(msg.sender, this, amount) on the token; returns what this contract's balance grew by.
    function _pullFee(address token, uint256 amount) private returns (uint256) {
        uint256 before = IFeeToken(token).balanceOf(address(this));
        _callToken(token, abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, address(this), amount));
        uint256 afterwards = IFeeToken(token).balanceOf(address(this));
        require(afterwards > before, "SafeERC20TransferFrom: balance not increased");
        return afterwards - before;
    }

    /// A token call that must succeed and return nothing or true (tokens that return nothing are accepted).
    function _callToken(address token, bytes memory data) private {
        require(token.code.length > 0, "TeleporterMessenger: fee token has no code");
        (bool ok, bytes memory ret) = token.call(data);
        require(ok, "TeleporterMessenger: token call failed");
        require(ret.length == 0 || abi.decode(ret, (bool)), "TeleporterMessenger: token call returned false");
    }

    // ---- receiving ----

    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress) external receiveLock {
        (WarpMessage memory w, bool valid) = WARP_MESSENGER.getVerifiedWarpMessage(messageIndex);
        require(valid, "TeleporterMessenger: invalid warp message");
        require(w.originSenderAddress == address(this), "TeleporterMessenger: invalid origin sender address");
        TeleporterMessage memory m = abi.decode(w.payload, (TeleporterMessage));
        bytes32 here = initializeBlockchainID();
        require(m.destinationBlockchainID == here, "TeleporterMessenger: invalid destination chain ID");
        bytes32 id = calculateMessageID(w.sourceChainID, here, m.messageNonce);
        require(_receivedNonce[id] == 0, "TeleporterMessenger: message already received");
        require(_allowed(msg.sender, m.allowedRelayerAddresses), "TeleporterMessenger: unauthorized relayer");
        require(m.messageNonce != 0, "TeleporterMessenger: zero message nonce");
        _receivedNonce[id] = m.messageNonce;
        if (relayerRewardAddress != address(0)) _rewardAddress[id] = relayerRewardAddress;

        for (uint256 i = 0; i < m.receipts.length; i++) _receipt(here, w.sourceChainID, m.receipts[i]);

        ReceiptQueue storage q = receiptQueues[w.sourceChainID];
        q.items[q.last++] = TeleporterMessageReceipt(m.messageNonce, relayerRewardAddress);

        emit ReceiveCrossChainMessage(id, w.sourceChainID, msg.sender, relayerRewardAddress, m);

        if (m.message.length > 0) _execute(id, w.sourceChainID, m);
    }

    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage calldata message) external receiveLock {
        bytes32 id = calculateMessageID(sourceBlockchainID, blockchainID, message.messageNonce);
        bytes32 failed = receivedFailedMessageHashes[id];
        require(failed != bytes32(0), "TeleporterMessenger: message not found");
        require(keccak256(abi.encode(message)) == failed, "TeleporterMessenger: invalid message hash");
        require(message.destinationAddress.code.length > 0, "TeleporterMessenger: destination address has no code");
        delete receivedFailedMessageHashes[id];
        emit MessageExecuted(id, sourceBlockchainID);
        bytes memory callData = abi.encodeCall(
            ITeleporterReceiver.receiveTeleporterMessage, (sourceBlockchainID, message.originSenderAddress, message.message)
        );
        require(_call(message.destinationAddress, gasleft(), callData), "TeleporterMessenger: retry execution failed");
    }

    function _allowed(address relayer, address[] memory allowed) private pure returns (bool) {
        if (allowed.length == 0) return true;
        for (uint256 i = 0; i < allowed.length; i++) if (allowed[i] == relayer) return true;
        return false;
    }

    /// A receipt for a message this chain sent to `destination`: pays the fee to the relayer's reward address once.
    function _receipt(bytes32 here, bytes32 destination, TeleporterMessageReceipt memory r) private {
        bytes32 id = calculateMessageID(here, destination, r.receivedMessageNonce);
        SentMessageInfo memory info = sentMessageInfo[id];
        if (info.messageHash == bytes32(0)) return; // unknown, or its receipt already came back
        delete sentMessageInfo[id];
        _rewards[r.relayerRewardAddress][info.feeInfo.feeTokenAddress] += info.feeInfo.amount;
        emit ReceiptReceived(id, destination, r.relayerRewardAddress, info.feeInfo);
    }

    function _execute(bytes32 id, bytes32 source, TeleporterMessage memory m) private {
        require(gasleft() >= m.requiredGasLimit, "TeleporterMessenger: insufficient gas");
        bool ok = false;
        if (m.destinationAddress.code.length > 0) {
            ok = _call(
                m.destinationAddress,
                m.requiredGasLimit,
                abi.encodeCall(ITeleporterReceiver.receiveTeleporterMessage, (source, m.originSenderAddress, m.message))
            );
        }
        if (ok) {
            emit MessageExecuted(id, source);
        } else {
            receivedFailedMessageHashes[id] = keccak256(abi.encode(m));
            emit MessageExecutionFailed(id, source, m);
        }
    }

    /// A call that copies no return data (a callee cannot make the caller pay for a huge one).
    function _call(address target, uint256 gasLimit, bytes memory data) private returns (bool ok) {
        assembly ("memory-safe") {
            ok := call(gasLimit, target, 0, add(data, 0x20), mload(data), 0, 0)
        }
    }

    // ---- rewards and views ----

    function redeemRelayerRewards(address feeTokenAddress) external {
        uint256 amount = _rewards[msg.sender][feeTokenAddress];
        require(amount > 0, "TeleporterMessenger: no reward to redeem");
        delete _rewards[msg.sender][feeTokenAddress];
        emit RelayerRewardsRedeemed(msg.sender, feeTokenAddress, amount);
        _callToken(feeTokenAddress, abi.encodeWithSignature("transfer(address,uint256)", msg.sender, amount));
    }

    function getMessageHash(bytes32 messageID) external view returns (bytes32) {
        return sentMessageInfo[messageID].messageHash;
    }

    function messageReceived(bytes32 messageID) external view returns (bool) {
        return _receivedNonce[messageID] != 0;
    }

    function getRelayerRewardAddress(bytes32 messageID) external view returns (address) {
        require(_receivedNonce[messageID] != 0, "TeleporterMessenger: message not received");
        return _rewardAddress[messageID];
    }

    function checkRelayerRewardAmount(address relayer, address feeTokenAddress) external view returns (uint256) {
        return _rewards[relayer][feeTokenAddress];
    }

    function getFeeInfo(bytes32 messageID) external view returns (address, uint256) {
        TeleporterFeeInfo memory f = sentMessageInfo[messageID].feeInfo;
        return (f.feeTokenAddress, f.amount);
    }

    function getNextMessageID(bytes32 destinationBlockchainID) external view returns (bytes32) {
        require(blockchainID != bytes32(0), "TeleporterMessenger: zero blockchain ID");
        return calculateMessageID(blockchainID, destinationBlockchainID, messageNonce + 1);
    }

    function getReceiptQueueSize(bytes32 sourceBlockchainID) external view returns (uint256) {
        ReceiptQueue storage q = receiptQueues[sourceBlockchainID];
        return q.last - q.first;
    }

    function getReceiptAtIndex(bytes32 sourceBlockchainID, uint256 index) external view returns (TeleporterMessageReceipt memory) {
        ReceiptQueue storage q = receiptQueues[sourceBlockchainID];
        require(index < q.last - q.first, "ReceiptQueue: index out of bounds");
        return q.items[q.first + index];
    }

    function initializeBlockchainID() public returns (bytes32) {
        if (blockchainID == bytes32(0)) {
            bytes32 id = WARP_MESSENGER.getBlockchainID();
            require(id != bytes32(0), "TeleporterMessenger: zero blockchain ID");
            blockchainID = id;
            emit BlockchainIDInitialized(id);
        }
        return blockchainID;
    }

    function calculateMessageID(bytes32 sourceBlockchainID, bytes32 destinationBlockchainID, uint256 nonce) public view returns (bytes32) {
        return keccak256(abi.encode(address(this), sourceBlockchainID, destinationBlockchainID, nonce));
    }
}
