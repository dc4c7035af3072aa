#include "guard/removal.hpp"

namespace guard {

RemoveResult remove_tree(const std::filesystem::path&, const std::filesystem::path&, const RemoveOptions&)
{
    throw Error("git guard remove is not implemented yet");
}

std::string discard(const std::filesystem::path&, const std::string&)
{
    throw Error("git guard discard is not implemented yet");
}

} // namespace guard
