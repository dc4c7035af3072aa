#include "guard/shim.hpp"
namespace guard {
int run_shim(const std::vector<std::string>&) { return 128; }
}
