// Running git as the hook found it (no hardening of our own), bounded by a deadline: a
// thin caller of the one runner (process.hpp).
#include "guard/git/bounded.hpp"

#include "guard/git/process.hpp"

namespace fs = std::filesystem;

namespace guard {

std::optional<Bounded> run_git_bounded(const fs::path& git_dir, const std::vector<std::string>& args,
                                       const std::string& input, std::chrono::steady_clock::time_point deadline)
{
    std::vector<std::string> argv{real_git()};
    if (!git_dir.empty())
        argv.push_back("--git-dir=" + git_dir.string());
    argv.insert(argv.end(), args.begin(), args.end());
    // Why: attributes and merge drivers must not change the published test (§4.2).
    RunResult r = run(argv, {.input = input, .env = {{"GIT_ATTR_NOSYSTEM", "1"}}, .deadline = deadline});
    if (r.timed_out)
        return std::nullopt;
    return Bounded{r.status, std::move(r.out), std::move(r.err)};
}

} // namespace guard
