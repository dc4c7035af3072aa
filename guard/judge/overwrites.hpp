#pragma once

#include "guard/judge/destroyed.hpp"
#include "guard/git/gitcall.hpp"

namespace guard {

// read-tree -u --reset|-m <tree>…: every staged and unstaged change, and the untracked
// files the tree brings in (one tree), or every untracked file (a merge of several).
Destroyed read_tree(const GitCall& call);

// checkout-index -f (-a, --stdin, or paths): the working versions it overwrites, and the
// untracked files standing where an index entry's file goes back.
Destroyed checkout_index(const GitCall& call);

// stash drop|clear: the stash commits let go (orphans.cpp). stash [push|save] without
// -u/-a: the untracked files its own `reset --hard` deletes, standing where a tracked path
// was deleted (git records the deletion in the stash, not the file that replaced it).
Destroyed stash(const GitCall& call);

// mv -f <source>… <destination>: the files it moves over (the destination, or each
// <destination>/<name> that exists), with their working and staged versions.
Destroyed mv(const GitCall& call);

} // namespace guard
