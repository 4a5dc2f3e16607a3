// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// The smallest contract there is to deploy from a constructor: a contract created by a contract's creation.
contract DevGrandchild {
    address public immutable parent = msg.sender;
}

/// Deployed by DevFactory (CREATE2 or CREATE); its constructor deploys a DevGrandchild, so a deployment trace has a
/// CREATE nested inside a CREATE/CREATE2 frame.
contract DevChild {
    address public immutable grandchild;
    uint256 public pings;

    event Pinged(address indexed from, uint256 value);

    constructor() {
        grandchild = address(new DevGrandchild());
    }

    function ping() external payable {
        pings++;
        emit Pinged(msg.sender, msg.value);
    }
}

/// Calls the indexer must follow inside transactions: value sent by internal calls, contract creation (CREATE and
/// CREATE2, nested), a reverted transaction and a reverted inner frame in a successful transaction.
contract DevFactory {
    event Deployed(address indexed child, bytes32 salt);
    event InnerFailed(bytes reason);

    /// Splits msg.value evenly among `to` with low-level calls (internal value transfers); the remainder stays here.
    function fanout(address[] calldata to) external payable {
        require(to.length > 0, "DevFactory: no recipients");
        uint256 share = msg.value / to.length;
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: share}("");
            require(ok, "DevFactory: send failed");
        }
    }

    function deploy(bytes32 salt) external returns (address child) {
        child = address(new DevChild{salt: salt}());
        emit Deployed(child, salt);
    }

    function deployCreate() external returns (address child) {
        child = address(new DevChild());
        emit Deployed(child, bytes32(0));
    }

    function boom() external pure {
        revert("DevFactory: boom");
    }

    /// An inner call that reverts, caught: the transaction succeeds with a reverted frame in its trace.
    function tryInner() external returns (bool) {
        try this.boom() {
            return true;
        } catch (bytes memory reason) {
            emit InnerFailed(reason);
            return false;
        }
    }
}
