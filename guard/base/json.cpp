#include "guard/base/json.hpp"

#include <algorithm>
#include <cstdio>

namespace guard {

namespace {

// Length of the valid UTF-8 sequence at `s[i]`, or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i)
{
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = byte(i);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2) || c > 0xf4)
        return 0;
    for (size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
    // No overlong forms, UTF-16 surrogates or code points above U+10FFFF: JSON
    // readers reject them, and the line would be lost with the name.
    unsigned char next = n > 2 ? byte(i + 1) : 0x80;
    if ((c == 0xe0 && next < 0xa0) || (c == 0xed && next > 0x9f) || (c == 0xf0 && next < 0x90) ||
        (c == 0xf4 && next > 0x8f))
        return 0;
    return n;
}

void escape_byte(std::string& out, unsigned char c)
{
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\u%04x", c);
    out += hex;
}

} // namespace

std::string json_string(std::string_view bytes)
{
    std::string out = "\"";
    for (size_t i = 0; i < bytes.size();) {
        auto c = static_cast<unsigned char>(bytes[i]);
        size_t n = utf8_length(bytes, i);
        if (n == 0) {
            escape_byte(out, c);
            ++i;
            continue;
        }
        if (n > 1) {
            out.append(bytes.substr(i, n));
        } else if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            escape_byte(out, c);
        } else {
            out += static_cast<char>(c);
        }
        i += n;
    }
    return out + "\"";
}

JsonObject& JsonObject::add_raw(std::string_view key, std::string_view json)
{
    if (!m_body.empty())
        m_body += ",";
    m_body += json_string(key);
    m_body += ":";
    m_body += json;
    return *this;
}

JsonObject& JsonObject::add(std::string_view key, std::string_view value)
{
    return add_raw(key, json_string(value));
}

JsonObject& JsonObject::add(std::string_view key, bool value)
{
    return add_raw(key, value ? "true" : "false");
}

JsonObject& JsonObject::add(std::string_view key, long long value)
{
    return add_raw(key, std::to_string(value));
}

JsonObject& JsonObject::add_null(std::string_view key) { return add_raw(key, "null"); }

JsonObject& JsonObject::add_strings(std::string_view key, const std::vector<std::string>& values)
{
    std::vector<std::string> items;
    for (const auto& v : values)
        items.push_back(json_string(v));
    return add_raw(key, json_array(items));
}

std::string json_array(const std::vector<std::string>& raw_items)
{
    std::string out = "[";
    for (size_t i = 0; i < raw_items.size(); ++i)
        out += (i ? "," : "") + raw_items[i];
    return out + "]";
}

} // namespace guard

namespace guard {

std::string json_or_null(std::string_view value)
{
    return value.empty() ? "null" : json_string(value);
}

namespace {

// Reads the JSON reader's input left to right; every failure is `ok = false`.
struct Reader {
    std::string_view s;
    size_t i = 0;
    bool ok = true;

    void blanks()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
            ++i;
    }
    bool eat(char c)
    {
        blanks();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    static void append_utf8(std::string& out, unsigned code)
    {
        if (code < 0x100) { // our writer's \u00XX is a byte, valid UTF-8 or not
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
        } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
        }
    }
    std::string string()
    {
        std::string out;
        if (!eat('"'))
            return ok = false, out;
        while (i < s.size() && s[i] != '"') {
            size_t plain_end = i; // a run without escapes, appended at once
            while (plain_end < s.size() && s[plain_end] != '"' && s[plain_end] != '\\')
                ++plain_end;
            if (plain_end != i) {
                out.append(s.substr(i, plain_end - i));
                i = plain_end;
                continue;
            }
            ++i;
            if (i >= s.size())
                break;
            char e = s[i++];
            const char* plain = "\"\\/bfnrt";
            const char* meant = "\"\\/\b\f\n\r\t";
            if (auto at = std::string_view(plain).find(e); at != std::string_view::npos) {
                out += meant[at];
            } else if (e == 'u' && i + 4 <= s.size()) {
                unsigned code = 0;
                for (size_t k = 0; k < 4; ++k) {
                    char h = s[i + k];
                    int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    ok = ok && digit >= 0;
                    code = code * 16 + static_cast<unsigned>(std::max(digit, 0));
                }
                append_utf8(out, code);
                i += 4;
            } else {
                ok = false;
            }
        }
        ok = ok && eat('"');
        return out;
    }
    // Skips a nested array or object, strings inside included.
    void skip_nested()
    {
        int depth = 0;
        do {
            if (s[i] == '"') {
                string();
                continue;
            }
            depth += (s[i] == '[' || s[i] == '{') ? 1 : (s[i] == ']' || s[i] == '}') ? -1 : 0;
            ++i;
        } while (ok && depth > 0 && i < s.size());
        ok = ok && depth == 0;
    }
};

} // namespace

bool read_json_fields(std::string_view line, const std::function<void(std::string_view, std::string&&)>& take)
{
    Reader r{line};
    if (!r.eat('{'))
        return false;
    if (r.eat('}'))
        return true;
    do {
        std::string key = r.string();
        if (!r.ok || !r.eat(':'))
            return false;
        r.blanks();
        if (r.i >= line.size())
            return false;
        char c = line[r.i];
        if (c == '"') {
            std::string value = r.string();
            if (r.ok)
                take(key, std::move(value));
        } else if (c == '[' || c == '{') {
            r.skip_nested();
        } else {
            size_t start = r.i;
            while (r.i < line.size() && line[r.i] != ',' && line[r.i] != '}')
                ++r.i;
            std::string word(line.substr(start, r.i - start));
            while (!word.empty() && word.back() == ' ')
                word.pop_back();
            if (word != "null")
                take(key, std::move(word));
        }
        if (!r.ok)
            return false;
    } while (r.eat(','));
    return r.eat('}');
}

std::optional<std::map<std::string, std::string>> parse_json_object(std::string_view line)
{
    std::map<std::string, std::string> out;
    if (!read_json_fields(line, [&out](std::string_view key, std::string&& value) {
            out[std::string(key)] = std::move(value);
        }))
        return std::nullopt;
    return out;
}

} // namespace guard
