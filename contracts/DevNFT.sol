// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import "./Base64.sol";

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data) external returns (bytes4);
}

/// ERC-721 (+ metadata, ERC-165) for the dev network. tokenURI is a data: URI built on chain; token BROKEN_ID
/// deliberately carries base64 of invalid JSON so the indexer's INVALID_METADATA_JSON path has a real case.
contract DevNFT {
    uint256 public constant BROKEN_ID = 3;
    string public constant name = "Dev NFT";
    string public constant symbol = "DNFT";
    uint256 public nextId = 1;
    mapping(uint256 => address) private owners;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x80ac58cd || id == 0x5b5e139f || id == 0x01ffc9a7;
    }

    function ownerOf(uint256 id) public view returns (address owner) {
        owner = owners[id];
        require(owner != address(0), "DevNFT: no token");
    }

    /// Anyone may mint (a dev contract); ids count up from 1.
    function mint(address to) external returns (uint256 id) {
        require(to != address(0), "DevNFT: zero address");
        id = nextId++;
        owners[id] = to;
        balanceOf[to]++;
        emit Transfer(address(0), to, id);
    }

    function approve(address to, uint256 id) external {
        address owner = ownerOf(id);
        require(msg.sender == owner || isApprovedForAll[owner][msg.sender], "DevNFT: not allowed");
        getApproved[id] = to;
        emit Approval(owner, to, id);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 id) public {
        require(ownerOf(id) == from, "DevNFT: wrong owner");
        require(to != address(0), "DevNFT: zero address");
        require(msg.sender == from || getApproved[id] == msg.sender || isApprovedForAll[from][msg.sender], "DevNFT: not allowed");
        delete getApproved[id];
        balanceOf[from]--;
        balanceOf[to]++;
        owners[id] = to;
        emit Transfer(from, to, id);
    }

    function safeTransferFrom(address from, address to, uint256 id) external {
        safeTransferFrom(from, to, id, "");
    }

    function safeTransferFrom(address from, address to, uint256 id, bytes memory data) public {
        transferFrom(from, to, id);
        if (to.code.length > 0) {
            require(IERC721Receiver(to).onERC721Received(msg.sender, from, id, data) == IERC721Receiver.onERC721Received.selector, "DevNFT: receiver refused");
        }
    }

    function tokenURI(uint256 id) external view returns (string memory) {
        ownerOf(id);
        string memory n = Base64.toString(id);
        if (id == BROKEN_ID) {
            return string.concat("data:application/json;base64,", Base64.encode(bytes(string.concat('{"name":"Dev NFT #', n, '",'))));
        }
        string memory svg = string.concat(
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#e84142"/>',
            '<text x="50" y="55" text-anchor="middle" fill="#fff">#', n, "</text></svg>"
        );
        string memory json = string.concat(
            '{"name":"Dev NFT #', n, '","description":"A token of the avaext dev network.","image":"data:image/svg+xml;base64,',
            Base64.encode(bytes(svg)), '"}'
        );
        return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
    }
}
