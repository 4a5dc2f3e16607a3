// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// An interchain message receiver for the dev network's traffic and the tests: it records every message it is
/// given, and reverts while told to fail (for MessageExecutionFailed and retryMessageExecution).
contract DevIcmReceiver {
    event Received(bytes32 indexed sourceBlockchainID, address indexed originSenderAddress, bytes message);

    bool public failing;
    uint256 public receivedCount;
    bytes32 public lastSourceBlockchainID;
    address public lastOriginSenderAddress;
    bytes public lastMessage;

    function setFailing(bool failing_) external {
        failing = failing_;
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message) external {
        require(!failing, "DevIcmReceiver: told to fail");
        receivedCount++;
        lastSourceBlockchainID = sourceBlockchainID;
        lastOriginSenderAddress = originSenderAddress;
        lastMessage = message;
        emit Received(sourceBlockchainID, originSenderAddress, message);
    }
}
