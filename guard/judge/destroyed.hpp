#pragma once

#include "guard/git/gitcall.hpp"
#include "guard/git/process.hpp"

#include <string>
#include <vector>

namespace guard {

// One path whose content an in-place destroyer would lose (DESIGN §6).
struct LostPath {
    std::string path;              // relative to the tree's root, as git prints it
    bool tracked = false;          // in the index: its staged version is recorded too
    bool ignored = false;          // an ignored file that guard.keepIgnored keeps
    std::string index_mode;        // the index entry ("000000": none), when tracked
    std::string index_oid;
    std::string worktree_mode;     // as status saw the working file ("000000": gone)
    bool staged = false;           // the index entry differs from HEAD's
};

// What `call` would destroy, as git itself reports it: status, clean -n, rev-parse.
struct Destroyed {
    std::string reason;               // the operation: "reset --hard", "checkout --", …
    std::string head;                 // HEAD's id ("" when unborn or not asked)
    std::string branch;               // short name ("" when detached)
    std::vector<LostPath> paths;      // tracked and untracked paths whose content goes
    std::vector<std::string> stashes; // stash commits that a drop or clear lets go
    std::string whole_tree_why;       // set: only a save of the whole tree will do
    std::string left_behind;          // HEAD (or a forced branch's old tip) when a move leaves commits on no ref
    std::string left_behind_branch;   // that branch, when it is not HEAD's
    bool quiet = false;               // the caller asked git for -q/--quiet: no line of ours either
    bool in_doubt = false;            // git could not say what goes: all the tree holds is at risk

    bool empty() const
    {
        return paths.empty() && stashes.empty() && whole_tree_why.empty() && left_behind.empty();
    }
};

// Whether `word` is a subcommand that can destroy work in place.
bool is_in_place_destroyer(const std::string& word);

// Asks git what `call` would destroy; nothing for the forms that destroy nothing
// (`reset --soft`, a `switch` without force, `restore --staged`, `clean -n`, …). When
// the answer is in doubt, it errs towards more (DESIGN §0.2): `whole_tree_why`.
Destroyed find_destroyed(const GitCall& call);

} // namespace guard
