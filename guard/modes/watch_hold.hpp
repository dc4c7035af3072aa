#pragma once
// Hold first, then judge (DESIGN §15): the objects of every tip the watcher knows and no
// remote-tracking ref holds stay in one kept pack (`.keep`), which neither `git prune` nor
// `gc --prune=now` deletes and no ref walk shows, so a tool that deletes a tip and prunes
// at once loses nothing before the watcher has saved it. Why a kept pack and not a hidden
// ref: docs/decisions.md, "The backstop's hold".

#include <filesystem>
#include <set>
#include <string>

namespace guard {

// Makes the hold of the repository at `common` exactly the objects of `tips` that the
// remote-tracking ref ids in `published` do not reach: a new kept pack, then the previous
// one let go. What only the previous hold kept (gc leaves objects in a kept pack out of
// its own pack) is first copied into an ordinary pack, so letting go never removes an
// object anything else still names. Unchanged tips cost no git call. Never throws: a
// hold that cannot be written is logged, and the previous one stays.
void hold_tips(const std::filesystem::path& common, const std::set<std::string>& tips,
               const std::set<std::string>& published);

// hold_tips of what is held now and `tips`, when `tips` are not all held already: the
// moment before a save, when what vanished must stay held and what is new be held too.
void hold_more(const std::filesystem::path& common, const std::set<std::string>& tips,
               const std::set<std::string>& published);

// The kept packs git-guard's hold made (their `.keep` says so), for doctor and tests.
std::set<std::filesystem::path> hold_packs(const std::filesystem::path& common);

} // namespace guard
