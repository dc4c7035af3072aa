#pragma once
// The saves as the last full listing found them, kept in `<common>/guard/listing` under a
// key made of every fact the listing is made from: git's for-each-ref output for the save
// refs and chains (names and object ids), the journal's bytes, the backup remote. A listing
// whose key matches is what reading everything again would give, so `list`, `find`, `drop`
// read it instead of parsing the journal and every chained save again (issue 35: 20,000
// saves). Nothing is judged from it that the key does not pin.
#include "guard/base/digest.hpp"
#include "guard/save/stranded.hpp"

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

namespace guard {

using ListingKey = Digest;

// The key of a listing made from `facts`, in order (each one's length is part of it).
ListingKey listing_key(std::initializer_list<std::string_view> facts);

// Gives `each` the saves kept under `key`, in order, one Save object reused from call to
// call (copy what must outlive the call). False, having given none, when none are kept
// under `key` (missing, another key, cut short, an older format).
bool read_listing(const std::filesystem::path& common, const ListingKey& key,
                  const std::function<void(const Save&)>& each);

// Keeps `saves` under `key`, replacing what was kept. Never throws.
void write_listing(const std::filesystem::path& common, const ListingKey& key, const std::vector<Save>& saves);

} // namespace guard
