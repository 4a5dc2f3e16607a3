// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import "./Base64.sol";

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data) external returns (bytes4);
    function onERC1155BatchReceived(address operator, address from, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external returns (bytes4);
}

/// ERC-1155 (+ metadata URI, ERC-165) for the dev network; uri(id) is a per-id data: URI built on chain.
contract DevMulti {
    mapping(uint256 => mapping(address => uint256)) private balances;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0xd9b67a26 || id == 0x0e89341c || id == 0x01ffc9a7;
    }

    /// ERC-1155's balanceOf(account, id): the standard argument order (a public mapping's getter would be (id, account)).
    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids) external view returns (uint256[] memory out) {
        require(accounts.length == ids.length, "DevMulti: length mismatch");
        out = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) out[i] = balances[ids[i]][accounts[i]];
    }

    function uri(uint256 id) external pure returns (string memory) {
        string memory n = Base64.toString(id);
        string memory json = string.concat('{"name":"Dev Multi #', n, '","description":"A multi-token of the avaext dev network.","decimals":0}');
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// Anyone may mint (a dev contract).
    function mint(address to, uint256 id, uint256 value) external {
        balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
        _checkSingle(address(0), to, id, value, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        _authorize(from, to);
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
        _checkSingle(from, to, id, value, data);
    }

    function safeBatchTransferFrom(address from, address to, uint256[] calldata ids, uint256[] calldata values, bytes calldata data) external {
        require(ids.length == values.length, "DevMulti: length mismatch");
        _authorize(from, to);
        for (uint256 i = 0; i < ids.length; i++) _move(from, to, ids[i], values[i]);
        emit TransferBatch(msg.sender, from, to, ids, values);
        if (to.code.length > 0) {
            require(IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data) == IERC1155Receiver.onERC1155BatchReceived.selector, "DevMulti: receiver refused");
        }
    }

    function _authorize(address from, address to) internal view {
        require(to != address(0), "DevMulti: zero address");
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "DevMulti: not allowed");
    }

    function _move(address from, address to, uint256 id, uint256 value) internal {
        require(balances[id][from] >= value, "DevMulti: balance");
        balances[id][from] -= value;
        balances[id][to] += value;
    }

    function _checkSingle(address from, address to, uint256 id, uint256 value, bytes memory data) internal {
        if (to.code.length > 0) {
            require(IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data) == IERC1155Receiver.onERC1155Received.selector, "DevMulti: receiver refused");
        }
    }
}
