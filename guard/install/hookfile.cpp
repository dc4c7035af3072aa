// Hook files: ours (a stub, or the front end itself per contract C5) and the names hook
// managers move them to. Only reads; hookdir places and removes.
#include "guard/install/hookdir.hpp"

#include "guard/base/error.hpp"
#include "guard/install/install.hpp"
#include "guard/install/managers.hpp"
#include "guard/git/process.hpp"

#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

std::string base_hook_name(const fs::path& file)
{
    std::string name = file.filename().string();
    for (const char* suffix : {".legacy", ".old"})
        if (name.ends_with(suffix))
            return name.substr(0, name.size() - std::string(suffix).size());
    return name;
}

std::string hook_marker(const std::string& hook_name)
{
    return "# git-guard " + hook_name + " hook";
}

std::string hook_stub(const std::string& name)
{
    fs::path exe_dir = fs::path(self_path()).parent_path();
    fs::path path = exe_dir.parent_path() / "share/git-guard/hooks" / name;
    auto stub = read_bytes(path);
    if (!stub)
        throw Error("the hook template " + path.string() +
                    " is missing; reinstall git-guard "
                    "('cmake --install' puts it under share/git-guard/hooks)");
    fs::path front = front_end("git-guard-hook");
    if (::access(front.c_str(), X_OK) != 0)
        throw Error("the hook front end " + front.string() + " is missing; reinstall git-guard");
    const std::string placeholder = "@GUARD_HOOK_FRONT@";
    for (auto at = stub->find(placeholder); at != std::string::npos;
         at = stub->find(placeholder, at))
        stub->replace(at, placeholder.size(), front.string());
    const std::string binary = "@GUARD_BIN@"; // pre-auto-gc runs the full binary's sweep
    for (auto at = stub->find(binary); at != std::string::npos; at = stub->find(binary, at))
        stub->replace(at, binary.size(), self_path());
    return *stub;
}

bool hook_is_front_end()
{
    // The C5 front end reads the sidecar: its name in the binary says it knows that form.
    static const bool knows = [] {
        fs::path front = front_end(k_hook_front);
        return front.parent_path().filename() == "git-guard" &&
               read_bytes(front).value_or("").find(k_hook_sidecar) != std::string::npos;
    }();
    return knows;
}

bool is_guard_hook(const fs::path& file, const std::string& name)
{
    std::error_code ec;
    auto status = fs::symlink_status(file, ec);
    if (fs::is_symlink(status))
        return fs::read_symlink(file, ec).filename() == k_hook_front;
    if (!fs::is_regular_file(status))
        return false;
    std::string text = read_bytes(file).value_or("");
    if (text.find(hook_marker(name)) != std::string::npos)
        return true;
    if (name != "reference-transaction")
        return false;
    // A copy of a front end: this version's, or any version's binary.
    return text == read_bytes(front_end(k_hook_front)) ||
           (text.starts_with("\x7f" "ELF") && text.find(std::string(k_hook_front) + " ") != std::string::npos);
}

bool is_current_hook(const fs::path& file, const std::string& name)
{
    std::error_code ec;
    if (name != "reference-transaction" || !hook_is_front_end())
        return fs::is_regular_file(fs::symlink_status(file, ec)) &&
               read_bytes(file) == hook_stub(name);
    if (fs::is_symlink(fs::symlink_status(file, ec)))
        return fs::read_symlink(file, ec) == front_end(k_hook_front);
    return read_bytes(file) == read_bytes(front_end(k_hook_front)) &&
           read_bytes(file.parent_path() / k_hook_sidecar) == self_path();
}

fs::path hook_slot(const fs::path& dir, const std::string& name)
{
    bool precommit = name != "reference-transaction" && is_precommit_hook(dir / name);
    return precommit ? dir / (name + ".legacy") : dir / name;
}

std::vector<fs::path> renamed_copies(const fs::path& hook)
{
    std::string name = hook.filename().string();
    if (name.ends_with(".legacy") || name.ends_with(".old"))
        return {};
    return {hook.string() + ".old", hook.string() + ".legacy"};
}

} // namespace guard
