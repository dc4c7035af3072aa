// git-guard: one binary, three modes, chosen here once from argv[0] and argv[1].
//   basename "git"                         the shim (guards worktree remove/prune)
//   git-guard hook <name> <args...>        a git hook (reference-transaction)
//   anything else                          the CLI: git guard <command>
#include "guard/cli/cli.hpp"
#include "guard/base/error.hpp"
#include "guard/modes/hook.hpp"
#include "guard/modes/shim.hpp"
#include "guard/install/watch.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "guard/front/common.h" // open_std_fds: the front end's, shared
}

int main(int argc, char** argv)
{
    open_std_fds();
    std::vector<std::string> args(argv, argv + argc);
    std::string base = args.empty() ? "" : args[0].substr(args[0].rfind('/') + 1);
    try {
        // A guarded call restarts a watcher that died, as git starts its fsmonitor daemon.
        if (base == "git" || (args.size() >= 2 && args[1] == "hook"))
            guard::revive_watcher();
        if (base == "git")
            return guard::run_shim(args);
        if (args.size() >= 2 && args[1] == "hook")
            return guard::run_hook(std::vector<std::string>(args.begin() + 2, args.end()));
        return guard::run_cli(args);
    } catch (const guard::UsageError& e) {
        std::fprintf(stderr, "git-guard: usage: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "git-guard: error: %s\n", e.what());
        return base == "git" ? 128 : 1;
    }
}
