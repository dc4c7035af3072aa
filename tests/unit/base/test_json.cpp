#include "guard/base/json.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>

using guard::json_string;

namespace {

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s)
{
    for (size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (n == 0 || i + n > s.size())
            return false;
        unsigned cp = n == 1 ? c : c & (0xff >> (n + 1));
        for (size_t k = 1; k < n; ++k) {
            auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (b & 0x3f);
        }
        unsigned min = n == 2 ? 0x80 : n == 3 ? 0x800 : n == 4 ? 0x10000 : 0;
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n;
    }
    return true;
}

// Reads a json_string result back, taking every \u00XX as the byte XX (DESIGN §10:
// non-UTF-8 bytes are escaped as Latin-1), so the original bytes must come back.
std::string decode_bytes(std::string_view json)
{
    std::string out;
    BOOST_REQUIRE(json.size() >= 2 && json.front() == '"' && json.back() == '"');
    for (size_t i = 1; i + 1 < json.size(); ++i) {
        char c = json[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        char e = json[++i];
        switch (e) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u': {
            auto v = std::stoul(std::string(json.substr(i + 1, 4)), nullptr, 16);
            BOOST_REQUIRE_MESSAGE(v < 0x100, "a \\u escape above 0xff: " << json);
            out += static_cast<char>(v);
            i += 4;
            break;
        }
        default:
            out += e;
            break;
        }
    }
    return out;
}

struct Case {
    const char* name;
    std::string bytes;
};

std::ostream& operator<<(std::ostream& os, const Case& c)
{
    return os << c.name;
}

// Byte strings that are not valid UTF-8: each must come out escaped, never raw.
const Case k_invalid[] = {
    {"latin1_e_acute", "caf\xe9.txt"},     {"lone_continuation", "a\x80z"},
    {"truncated_3_byte", "a\xe2\x82"},     {"truncated_at_end", "x\xc3"},
    {"overlong_nul", "a\xc0\x80z"},        {"overlong_slash_3_byte", "a\xe0\x80\xafz"},
    {"utf16_surrogate", "a\xed\xa0\x80z"}, {"above_u10ffff", "a\xf4\x90\x80\x80z"},
    {"f5_lead", "a\xf5\x80\x80\x80z"},     {"ff_byte", "a\xffz"},
};

} // namespace

BOOST_AUTO_TEST_SUITE(json)

BOOST_AUTO_TEST_CASE(plain_and_special_characters)
{
    BOOST_TEST(json_string("plain/path.txt") == "\"plain/path.txt\"");
    BOOST_TEST(json_string("a \"quoted\" name") == "\"a \\\"quoted\\\" name\"",
               "a quote in a file name broke the JSON string");
    BOOST_TEST(json_string("back\\slash") == "\"back\\\\slash\"", "a backslash was not escaped");
    BOOST_TEST(json_string("new\nline\ttab") == "\"new\\nline\\ttab\"",
               "a newline or tab in a file name was written raw");
    BOOST_TEST(json_string(std::string("nul\0byte", 8)) == "\"nul\\u0000byte\"",
               "a NUL byte was dropped or written raw");
    BOOST_TEST(json_string("\x01\x1f\x7f") == "\"\\u0001\\u001f\\u007f\"",
               "control characters were written raw");
    BOOST_TEST(json_string("") == "\"\"");
}

BOOST_AUTO_TEST_CASE(valid_utf8_passes_through)
{
    for (std::string s :
         {"caf\xc3\xa9", "\xe2\x82\xac euro", "\xf0\x9f\x98\x80 emoji", "\xef\xbf\xbd"}) {
        BOOST_TEST_CONTEXT("input " << s)
        {
            BOOST_TEST(json_string(s) == "\"" + s + "\"", "a valid UTF-8 name was altered");
        }
    }
}

BOOST_DATA_TEST_CASE(invalid_utf8_is_escaped_as_latin1_bytes,
                     boost::unit_test::data::make(k_invalid), c)
{
    std::string out = json_string(c.bytes);
    BOOST_TEST_MESSAGE(c.name << " -> " << out);
    BOOST_TEST(valid_utf8(out),
               "non-UTF-8 bytes were written raw, so the JSON line is not valid UTF-8: " << out);
    BOOST_TEST(decode_bytes(out) == c.bytes,
               "the file name's bytes were dropped or changed: " << out);
}

BOOST_AUTO_TEST_CASE(latin1_escape_is_lowercase_u00xx)
{
    BOOST_TEST(json_string("caf\xe9") == "\"caf\\u00e9\"",
               "a non-UTF-8 byte was not written as \\u00XX");
}

BOOST_AUTO_TEST_CASE(object_and_array_shape)
{
    guard::JsonObject o;
    o.add("path", "/t/a b").add("ok", true).add("n", 42LL).add_null("branch");
    o.add_strings("commits", {"abc", "d\"e"});
    o.add_raw(
        "changes",
        guard::json_array({guard::JsonObject().add("path", "x").add("kind", "untracked").str()}));
    BOOST_TEST(o.str() == "{\"path\":\"/t/a b\",\"ok\":true,\"n\":42,\"branch\":null,"
                          "\"commits\":[\"abc\",\"d\\\"e\"],"
                          "\"changes\":[{\"path\":\"x\",\"kind\":\"untracked\"}]}");
    BOOST_TEST(guard::json_array({}) == "[]");
    BOOST_TEST(guard::JsonObject().str() == "{}");
}

BOOST_AUTO_TEST_SUITE_END()

// --- parse_json_object: the journal reads back what JsonObject wrote ------------------

BOOST_AUTO_TEST_SUITE(json_parse)

BOOST_AUTO_TEST_CASE(round_trip_of_odd_bytes_and_nulls)
{
    std::string odd = std::string("caf\xe9 \"q\" \\ \n\t\x01 \xc3\xa9", 15);
    std::string line = guard::JsonObject()
                           .add("path", odd)
                           .add_null("branch")
                           .add("ok", false)
                           .add("pid", 42LL)
                           .add_strings("list", {"a", "b]"})
                           .add("after", "x")
                           .str();
    auto parsed = guard::parse_json_object(line);
    BOOST_REQUIRE_MESSAGE(parsed, "a line JsonObject wrote does not parse: " << line);
    BOOST_TEST((*parsed)["path"] == odd, "the non-UTF-8 path did not survive the journal");
    BOOST_TEST(!parsed->count("branch"), "null read back as a value");
    BOOST_TEST((*parsed)["ok"] == "false");
    BOOST_TEST((*parsed)["pid"] == "42");
    BOOST_TEST((*parsed)["after"] == "x", "a key after an array was lost");
}

BOOST_AUTO_TEST_CASE(torn_lines_are_not_objects)
{
    BOOST_TEST(!guard::parse_json_object("{\"kind\":\"sa"));
    BOOST_TEST(!guard::parse_json_object("not json"));
    BOOST_TEST(!guard::parse_json_object(""));
    BOOST_TEST(guard::json_or_null("") == "null", "an absent value is not null");
    BOOST_TEST(guard::json_or_null("x") == "\"x\"");
}

BOOST_AUTO_TEST_SUITE_END()
