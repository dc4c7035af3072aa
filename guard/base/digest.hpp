#pragma once
// A fast 128-bit digest of bytes, for keys of what the guard keeps (the saves' listing, an
// index's listing): not a defence against a forger. What it keys is the repository owner's
// own, as is what it is kept beside.
#include <cstdint>
#include <string>
#include <string_view>

namespace guard {

struct Digest {
    uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
    // Adds `bytes`, its length included, so ("ab", "c") and ("a", "bc") differ.
    Digest& add(std::string_view bytes);
    std::string hex() const; // 32 hex digits
    bool operator==(const Digest&) const = default;
};

} // namespace guard
