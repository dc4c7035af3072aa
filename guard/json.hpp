#pragma once

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

} // namespace guard
