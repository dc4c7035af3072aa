// The shim's slow path: what the front end (front/shim.c) forwards, with its parse of
// the command line. Nothing here parses git's options again (DESIGN §0.5): the call
// arrives as GitCall. "Guarded?" is git's answer, asked before anything libgit2 could
// fail on (DESIGN §0.4); which trees a removal or prune destroys is git's answer too.
#include "guard/modes/shim.hpp"

#include "guard/base/error.hpp"
#include "guard/base/log.hpp"
#include "guard/git/process.hpp"
#include "guard/git/worktrees.hpp"
#include "guard/modes/inplace.hpp"
#include "guard/modes/shim_worktree.hpp"
#include "guard/modes/unhooked.hpp"
#include "guard/modes/watch_sweep.hpp"

#include <cstdlib>
#include <unistd.h>

extern "C" {
#include "guard/front/common.h"
}

namespace fs = std::filesystem;

namespace guard {

namespace {

// Not through the front end (git-guard linked as `git` directly): let the one parser,
// the front end next to this binary, look at the call first.
[[noreturn]] void reparse(const std::vector<std::string>& args)
{
    std::vector<std::string> argv = args;
    argv[0] = (fs::path(self_path()).parent_path() / "git-guard-shim").string();
    if (::access(argv[0].c_str(), X_OK) != 0)
        argv[0] = find_real_git();
    exec(argv);
}

// `[--guard-config=<C> <entries…>]` at `args[at]` (front/shim.c, forward): the front
// end's config listing, one "key\nvalue" (or "key") word each, into `call.config`.
void decode_config(const std::vector<std::string>& args, size_t& at, GitCall& call)
{
    if (at >= args.size() || !args[at].starts_with("--guard-config="))
        return;
    std::string n = args[at].substr(15);
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError("the shim's handoff is malformed (front end and git-guard differ?)");
    size_t count = std::stoul(n);
    if (++at + count > args.size())
        throw UsageError("the shim's handoff is malformed (front end and git-guard differ?)");
    call.config.emplace();
    for (size_t i = 0; i < count; ++i, ++at)
        call.config->push_back(config_entry(args[at]));
}

} // namespace

GitCall decode_call(const std::vector<std::string>& args)
{
    GitCall call;
    auto fail = [] { return UsageError("the shim's handoff is malformed (front end and git-guard differ?)"); };
    std::string mode = args.size() < 6 ? "" : args[1];
    call.hooks_off = mode.ends_with(",hooks-off");
    if (call.hooks_off)
        mode.resize(mode.size() - 10);
    if (mode != "--guard-call=1" && mode != "--guard-call=2")
        throw fail();
    call.enabled_asked = mode == "--guard-call=2";
    call.real_git = args[2];
    call.cwd = args[3];
    size_t at = 4;
    auto list = [&](std::vector<std::string>& into) {
        size_t n = at < args.size() ? std::stoul(args[at++]) : 0;
        if (at + n > args.size())
            throw fail();
        into.assign(args.begin() + static_cast<long>(at), args.begin() + static_cast<long>(at + n));
        at += n;
    };
    list(call.globals);
    list(call.words);
    decode_config(args, at, call);
    if (at >= args.size() || args[at] != "--")
        throw fail();
    call.argv = {"git"};
    call.argv.insert(call.argv.end(), args.begin() + static_cast<long>(at + 1), args.end());
    return call;
}


int run_shim(const std::vector<std::string>& args)
{
    if (args.size() < 2 || !args[1].starts_with("--guard-call="))
        reparse(args);
    GitCall call = decode_call(args);
    if (call.words.empty() || (!call.enabled_asked && !config_true(call, "guard.enabled"))) {
        call.hooks_off = false;
        exec_git(call); // unguarded: git, untouched (DESIGN §0.4)
    }
    // Nothing logs before the log has its place: the place is asked of git only when a
    // layer needs the site (a clean in-place destroyer never does).
    init_log({}, false);
    bool housekeeping = call.words[0] == "gc" || call.words[0] == "prune" || call.words[0] == "maintenance";
    // These ask the site anyway: outside a repository (or one this git cannot read) there is
    // nothing to guard, and git's own words say so, not ours.
    if ((housekeeping || call.words[0] == "worktree") && site_of(call).common.empty())
        exec_git(call);
    if (housekeeping) {
        init_log(site_of(call).repository(), false);
        sweep_before_gc(site_of(call).repository()); // the backstop's sweep (DESIGN §15), then git
    }
    if (auto argv = packing_argv(call))
        exec(*argv);
    if (call.words[0] != "worktree") {
        if (int rc = guard_unhooked_deletion(call))
            return rc;
        if (int rc = guard_in_place(call))
            return rc;
        exec_git(call);
    }
    return guard_worktree(call);
}

size_t subcommand_index(const std::vector<std::string>& argv)
{
    std::vector<char*> words;
    for (const auto& a : argv)
        words.push_back(const_cast<char*>(a.c_str()));
    int at = skip_git_options(static_cast<int>(words.size()), words.data(), 1, nullptr);
    return at < 0 ? argv.size() : static_cast<size_t>(at);
}

} // namespace guard
