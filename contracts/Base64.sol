// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// On-chain base64 and decimal strings for the dev contracts' data: URIs (no library imports, by design).
library Base64 {
    bytes internal constant TABLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Standard base64 (RFC 4648) with `=` padding.
    function encode(bytes memory data) internal pure returns (string memory) {
        if (data.length == 0) return "";
        bytes memory out = new bytes(4 * ((data.length + 2) / 3));
        uint256 o = 0;
        for (uint256 i = 0; i < data.length; i += 3) {
            uint256 a = uint8(data[i]);
            uint256 b = i + 1 < data.length ? uint8(data[i + 1]) : 0;
            uint256 c = i + 2 < data.length ? uint8(data[i + 2]) : 0;
            uint256 n = (a << 16) | (b << 8) | c;
            out[o++] = TABLE[(n >> 18) & 63];
            out[o++] = TABLE[(n >> 12) & 63];
            out[o++] = i + 1 < data.length ? TABLE[(n >> 6) & 63] : bytes1("=");
            out[o++] = i + 2 < data.length ? TABLE[n & 63] : bytes1("=");
        }
        return string(out);
    }

    /// A uint256 in decimal.
    function toString(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        uint256 len;
        for (uint256 t = v; t != 0; t /= 10) len++;
        bytes memory out = new bytes(len);
        for (; v != 0; v /= 10) out[--len] = bytes1(uint8(48 + (v % 10)));
        return string(out);
    }
}
