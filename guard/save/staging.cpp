// The save's trees (DESIGN §5.2): a private copy of the checkout's index, written as it is
// (I); then the paths git's status found changed, as their bytes on disk (S, stage_listed),
// or, where only git can say how, `git add` and `write-tree` (sparse and split indexes,
// links, conflicts, nested repositories), the changed files then their bytes on disk
// (DESIGN §4.1.1). No filter or fsmonitor command of the repository's runs (quiet_git).
#include "guard/save/staging.hpp"

#include "guard/save/layout.hpp"
#include "guard/save/nested.hpp"
#include "guard/git/config.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace guard {

TempFile::TempFile(const fs::path& dir, const std::string& stem)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string pattern = (dir / (stem + "-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    int fd = ec ? -1 : ::mkstemp(pattern.data());
    if (fd < 0)
        throw Error("cannot create a private file in " + dir.string() + ": " +
                    (ec ? ec.message() : std::strerror(errno)));
    ::close(fd);
    m_path = pattern;
}

TempFile::~TempFile()
{
    std::error_code ec;
    fs::remove(m_path, ec);
    fs::remove(m_path.string() + ".lock", ec);
}

void sweep_tmp(const fs::path& common)
{
    // A killed save leaves its private index behind; an hour is far longer than any save.
    std::error_code ec;
    auto now = fs::file_time_type::clock::now();
    auto cutoff = now - std::chrono::hours(1);
    fs::path mark = common / "guard" / "swept";
    if (fs::exists(mark, ec) && fs::last_write_time(mark, ec) > cutoff)
        return; // swept within the hour: nothing a killed save left is old enough yet
    fs::create_directories(common / "guard", ec);
    std::ofstream{mark};
    fs::last_write_time(mark, now, ec);
    for (const auto& entry : fs::directory_iterator(common / "guard" / "tmp", ec)) {
        std::error_code e;
        if (fs::last_write_time(entry.path(), e) < cutoff && !e)
            fs::remove_all(entry.path(), e);
    }
    // git's own half-written objects (tmp_obj_*, left when a write fails on a full disk).
    for (const auto& dir : fs::directory_iterator(common / "objects", ec)) {
        if (dir.path().filename().string().size() != 2)
            continue;
        std::error_code e;
        for (const auto& entry : fs::directory_iterator(dir.path(), e))
            if (entry.path().filename().string().starts_with("tmp_obj_") &&
                fs::last_write_time(entry.path(), e) < cutoff && !e)
                fs::remove(entry.path(), e);
    }
}

namespace {

// Runs `args` with `paths` on stdin, NUL-separated; nothing when there are none.
void feed(const Git& git, const std::vector<std::string>& args, const std::vector<std::string>& paths,
          const std::string& what)
{
    if (paths.empty())
        return;
    std::string input;
    for (const auto& p : paths)
        input += p + '\0';
    git.out(args, what, input);
}

// Excluded paths go back as HEAD has them (LESSONS 7: staged, then put back,
// never named to `git add`).
void restore_excluded(const Git& git, const Work& w)
{
    std::vector<std::string> all, tracked;
    for (const auto& e : w.excluded) {
        all.push_back(e.path);
        if (e.tracked)
            tracked.push_back(e.path);
    }
    feed(git, {"update-index", "-z", "--force-remove", "--stdin"}, all, "put excluded paths back");
    if (tracked.empty() || !w.head)
        return;
    std::vector<std::string> args = {"ls-tree", "-z", "--full-tree", *w.head, "--"};
    args.insert(args.end(), tracked.begin(), tracked.end());
    std::string entries = git.with_env("GIT_LITERAL_PATHSPECS", "1").out(args, "read excluded paths from HEAD");
    if (!entries.empty())
        git.out({"update-index", "-z", "--index-info"}, "put excluded paths back as HEAD has them", entries);
}

} // namespace

void put_back_excluded(const Git& git, const Work& work) { restore_excluded(git, work); }

namespace {

// `file` as a copy of the checkout's own index (none: git starts from an empty one).
void copy_index(const Git& git, const TempFile& file)
{
    std::error_code ec;
    fs::path own = git.index();
    if (fs::exists(own, ec)) {
        if (!fs::copy_file(own, file.path(), fs::copy_options::overwrite_existing, ec))
            throw Error("cannot copy the index of " + git.work_tree().string() + ": " + ec.message());
    } else {
        fs::remove(file.path(), ec);
    }
}

const std::vector<std::string> k_add_all = {"add", "-A", "--sparse", "--", "."};

// The second half: what only the inspection knows (hidden edits, kept ignored files,
// excluded paths, nested saves), then S's tree.
void finish_staging(const Git& g, const Work& w, Staged& st);

} // namespace

EarlyStaging::EarlyStaging(const Git& git, const fs::path& common)
{
    try {
        m_index_copy = std::make_unique<TempFile>(common / "guard" / "tmp", "index");
        copy_index(git, *m_index_copy);
        m_write.emplace(git.with_index(m_index_copy->path()).start({"write-tree"}));
    } catch (const Error& e) {
        spdlog::debug("early staging not started: {}", e.what()); // the usual staging runs
    }
}

EarlyStaging::~EarlyStaging() = default; // the job is waited for, then the file goes

std::optional<EarlyStaging::Result> EarlyStaging::take()
{
    if (!m_write)
        return std::nullopt;
    RunResult written = m_write->wait();
    m_write.reset();
    std::string tree = first_line_of(written.out);
    if (written.status != 0 || !is_oid(tree)) {
        spdlog::debug("early staging failed ({}); staging again", written.err);
        return std::nullopt;
    }
    return Result{m_index_copy->path(), tree};
}

namespace {

// core.fileMode and core.autocrlf as git reads them (from the config listing every decision
// reads already): a bool git cannot read is not trusted to be off.
StageRules stage_rules(const fs::path& common)
{
    std::optional<std::string> filemode, autocrlf;
    for (const auto& [key, value] : guard_config(common)) {
        if (key == "core.filemode")
            filemode = value;
        else if (key == "core.autocrlf")
            autocrlf = value;
    }
    StageRules rules;
    if (filemode)
        rules.trust_exec = typed_value(common, "core.filemode", *filemode, "bool") != std::optional<std::string>("false");
    if (autocrlf)
        rules.autocrlf = typed_value(common, "core.autocrlf", *autocrlf, "bool") != std::optional<std::string>("false");
    return rules;
}

// S's tree from the inspection's list (stage_listed) into `g`, whose index holds I; nothing
// when only `git add` can say, or when git failed on a path that changed meanwhile (a file
// turned into a directory): git then wrote no index, and `add` stages what is there now.
std::optional<std::string> listed_tree(const Git& g, const Work& w, const fs::path& common,
                                       const std::string& index_tree)
{
    try {
        return stage_listed(g, w, stage_rules(common), index_tree);
    } catch (const Error& e) {
        spdlog::info("staging from status's list failed ({}); staging with git add", e.what());
        return std::nullopt;
    }
}

} // namespace

Staged stage_checkout(const Git& git, const Work& w, const fs::path& common, EarlyStaging* early,
                      const std::vector<std::string>* nested_saved)
{
    // The early staging wrote I's tree beside the inspection; with no conflict to record
    // first, S's tree is staged on top of it: from the inspection's list, or else with `add`
    // when no nested repository is to be left out of it.
    if (early && w.unmerged.empty()) {
        if (auto done = early->take()) {
            Staged st;
            st.index_tree = done->index_tree;
            Git g = quiet_git(git).with_index(done->index);
            if (auto tree = listed_tree(g, w, common, st.index_tree)) {
                st.worktree_tree = *tree;
                return st;
            }
            if (w.nested.empty()) {
                g.out(k_add_all, "stage the working state of " + git.work_tree().string());
                finish_staging(g, w, st);
                return st;
            }
        }
    }
    TempFile file(common / "guard" / "tmp", "index");
    copy_index(git, file);
    Git g = quiet_git(git).with_index(file.path());
    Staged st;
    std::error_code gone;
    if (!git.work_tree().empty() && !fs::exists(git.work_tree(), gone)) {
        // The tree's directory is gone: what its admin entry's index stages is all there is.
        st.index_tree = write_tree(Git(git.git_dir()).with_index(file.path()),
                                   "write the index of " + git.work_tree().string());
        st.worktree_tree = st.index_tree;
        return st;
    }
    // I: the index as staged; a conflict holds the working file's content, or nothing
    // when a directory now stands at its path (its files are S's, through `add -A`).
    std::vector<std::string> conflicts, replaced;
    for (const auto& path : w.unmerged) {
        std::error_code ec;
        bool dir = fs::is_directory(fs::symlink_status(git.work_tree() / path, ec));
        (dir ? replaced : conflicts).push_back(path);
    }
    feed(g, {"update-index", "-z", "--add", "--remove", "--stdin"}, conflicts, "record the conflicts");
    feed(g, {"update-index", "-z", "--force-remove", "--stdin"}, replaced, "record the conflicts replaced by directories");
    bool index_lost = false;
    std::vector<std::string> missing;
    try {
        try {
            st.index_tree = write_tree(g, "write the index of " + git.work_tree().string());
        } catch (const Error&) {
            // Entries naming a blob the store lacks are left out, as git's write-tree would
            // refuse them, and named (Stranded-Unsaved); the other staged entries are kept.
            missing = missing_blob_entries(g);
            if (missing.empty())
                throw;
            feed(g, {"update-index", "-z", "--force-remove", "--stdin"}, missing, "leave out the missing blobs");
            st.index_tree = write_tree(g, "write the index of " + git.work_tree().string());
        }
    } catch (const Error& e) {
        // The index names objects the store has lost (git's t1450 deletes a staged blob):
        // what was staged cannot be written, but what is on disk can. Start from HEAD
        // instead, with no stat data, so `add -A` below hashes every file afresh.
        spdlog::warn("{}; saving the files of {} on HEAD instead", e.what(), git.work_tree().string());
        g.out({"read-tree", w.head ? *w.head : "--empty"}, "start the save of " + git.work_tree().string() + " from HEAD");
        index_lost = true;
    }
    if (!index_lost && missing.empty()) {
        if (auto tree = listed_tree(g, w, common, st.index_tree)) {
            st.worktree_tree = *tree;
            return st;
        }
    }
    for (const auto& rel : w.nested) {
        if (nested_saved && std::find(nested_saved->begin(), nested_saved->end(), rel) == nested_saved->end()) {
            spdlog::info("nested repository {} is left alone: not saved", rel);
            continue;
        }
        if (auto n = save_nested(git, rel, common))
            st.nested.push_back(*n);
    }
    std::vector<std::string> add = k_add_all;
    for (const auto& rel : w.nested)
        add.push_back(":(exclude,literal)" + rel);
    g.out(add, "stage the working state of " + git.work_tree().string());
    finish_staging(g, w, st);
    if (index_lost)
        st.index_tree = st.worktree_tree;
    for (const auto& path : missing)
        st.unsaved.push_back({path, k_missing_blob});
    return st;
}

namespace {

void finish_staging(const Git& g, const Work& w, Staged& st)
{
    std::vector<std::string> kept;
    for (const auto& c : w.changes)
        if (c.kind == ChangeKind::ignored)
            kept.push_back(c.path);
    Git literal = g.with_env("GIT_LITERAL_PATHSPECS", "1");
    // One flag per call: update-index applies only the last of --no-skip-worktree
    // and --no-assume-unchanged when both are given.
    feed(g, {"update-index", "-z", "--no-skip-worktree", "--stdin"}, w.hidden, "unhide edited paths");
    feed(g, {"update-index", "-z", "--no-assume-unchanged", "--stdin"}, w.hidden, "unhide edited paths");
    feed(literal, {"add", "--sparse", "--pathspec-from-file=-", "--pathspec-file-nul"}, w.hidden,
         "stage hidden edits");
    feed(literal, {"add", "-f", "--sparse", "--pathspec-from-file=-", "--pathspec-file-nul"}, kept,
         "stage guard.keepIgnored paths");
    restore_excluded(g, w);
    for (const auto& n : st.nested)
        g.out({"update-index", "--add", "--cacheinfo", "160000," + n.commit + "," + n.path},
              "record nested repository " + n.path);
    st.worktree_tree = write_tree(g, "write the working state of " + g.work_tree().string());
    st.unsaved = stage_raw(g, w.head.value_or(""), st.worktree_tree);
}

} // namespace

std::string stage_files(const Git& git, const fs::path& common, bool with_ignored)
{
    TempFile file(common / "guard" / "tmp", "files");
    std::error_code ec;
    fs::remove(file.path(), ec); // an empty index
    Git g = quiet_git(git).with_index(file.path());
    std::vector<std::string> add = {"add", "-A"};
    if (with_ignored)
        add.push_back("-f");
    add.insert(add.end(), {"--", "."});
    g.out(add, "save the files of " + git.work_tree().string());
    std::string tree = write_tree(g, "write the files of " + git.work_tree().string());
    for (const auto& u : stage_raw(g, "", tree))
        spdlog::warn("{} is not in the save of {}: {}", u.path, git.work_tree().string(), u.why);
    return tree;
}

std::string stage_husk(const fs::path& common, const fs::path& root)
{
    // -f: a husk's own ignore rules may be gone with it; everything on disk is saved.
    return stage_files(Git(common, root), common, true);
}

} // namespace guard
