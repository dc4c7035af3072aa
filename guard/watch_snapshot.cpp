// The time layer's schedule.
#include "guard/watch_snapshot.hpp"

namespace guard {

void Snapshots::take(const std::map<std::string, std::unique_ptr<RepoWatch>>& repos)
{
    (void)repos;
}

} // namespace guard
