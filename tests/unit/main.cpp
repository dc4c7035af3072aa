#define BOOST_TEST_MODULE git_guard
#include <boost/test/unit_test.hpp>
