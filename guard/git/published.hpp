#pragma once
// DESIGN §4.2's question for many tips at once (`git guard drop --published` over
// thousands of saves): the same answer PublishedCheck gives each, from one ancestry walk
// per candidate U and one merge-tree for every pair that walk leaves open.
#include "guard/git/published_check.hpp"

#include <string>
#include <utility>
#include <vector>

namespace guard {

// A tip and the branch it came from ("" when none).
using TipOf = std::pair<std::string, std::string>;

// For each of `tips`, whether `check` would find it published. Any error reads as "not
// published" for the tips it concerns (they are then asked of `check` one by one).
std::vector<bool> published_tips(PublishedCheck& check, const Git& git, const std::vector<TipOf>& tips);

} // namespace guard
