#pragma once

// What the hook keeps of a transaction's verdicts that hold work (DESIGN §4.2, §5): a
// save ref per branch or detached HEAD, a bundle in a mirror (or a locked reftable
// store), a refusal for a save ref that would lose unique commits.

#include "guard/judge/deletions.hpp"

#include <filesystem>
#include <vector>

namespace guard {

enum class Bundle { no, yes };

// Keeps every verdict in `verdicts` (each holds unique, unpublished commits); says on
// stderr what was kept where, or why it could not be. Returns false when something could
// not be kept or was refused: git must then abort the transaction.
bool keep_verdicts(const std::filesystem::path& git_dir, const std::filesystem::path& common,
                   const std::vector<const BranchVerdict*>& verdicts, Bundle bundle);

} // namespace guard
