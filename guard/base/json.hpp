#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace guard {

// A JSON string literal for `bytes`. Bytes that are not valid UTF-8 are written
// as \u00XX, reading them as Latin-1, so odd file names are never dropped.
std::string json_string(std::string_view bytes);

// Builds one JSON object, fields in insertion order.
class JsonObject {
public:
    JsonObject& add(std::string_view key, std::string_view value);
    JsonObject& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
    JsonObject& add(std::string_view key, bool value);
    JsonObject& add(std::string_view key, long long value);
    JsonObject& add_null(std::string_view key);
    JsonObject& add_raw(std::string_view key, std::string_view json);
    JsonObject& add_strings(std::string_view key, const std::vector<std::string>& values);
    std::string str() const { return "{" + m_body + "}"; }

private:
    std::string m_body;
};

std::string json_array(const std::vector<std::string>& raw_items);

// `value` as a JSON string, or `null` when it is empty: absent facts are null (DESIGN §10).
std::string json_or_null(std::string_view value);

// One flat JSON object as written by JsonObject: each key's value as text (strings
// unescaped, \u00XX back to its byte; numbers, true and false as written). Keys whose value
// is null, an array or an object are left out. Returns nothing when `line` is not an object.
std::optional<std::map<std::string, std::string>> parse_json_object(std::string_view line);

// The same fields handed to `take` (key, value) in the order written, without building a
// map: for readers of many lines (the journal). False when `line` is not an object (`take`
// may have had some of its fields).
bool read_json_fields(std::string_view line, const std::function<void(std::string_view, std::string&&)>& take);

} // namespace guard
