// JSON documents through simdjson into a flat node array (see cshims_parse.h).
#include "cshims_parse.h"

#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct rsc_json {
    std::vector<rsc_json_node> nodes;
    std::vector<uint8_t> text;
    std::string error;  // empty: valid
    uint64_t error_offset = UINT64_MAX, error_line = UINT64_MAX, error_column = UINT64_MAX;
};

namespace {

using namespace simdjson;

uint64_t bits(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}

// Appends element `e` and its descendants in document order. Depth is bounded by the parser's max_depth.
void emit(dom::element e, rsc_json *out) {
    rsc_json_node n{};
    switch (e.type()) {
    case dom::element_type::ARRAY: {
        dom::array a;
        if (e.get(a) != SUCCESS) throw std::runtime_error("array");
        size_t at = out->nodes.size();
        n.kind = RSC_JSON_ARRAY;
        out->nodes.push_back(n);
        uint32_t count = 0;
        for (dom::element child : a) {
            emit(child, out);
            count++;
        }
        out->nodes[at].count = count;
        out->nodes[at].payload = out->nodes.size();
        return;
    }
    case dom::element_type::OBJECT: {
        dom::object o;
        if (e.get(o) != SUCCESS) throw std::runtime_error("object");
        size_t at = out->nodes.size();
        n.kind = RSC_JSON_OBJECT;
        out->nodes.push_back(n);
        uint32_t count = 0;
        for (dom::key_value_pair member : o) {
            rsc_json_node key{};
            key.kind = RSC_JSON_STRING;
            key.count = (uint32_t)member.key.size();
            key.payload = out->text.size();
            out->text.insert(out->text.end(), member.key.begin(), member.key.end());
            out->nodes.push_back(key);
            emit(member.value, out);
            count++;
        }
        out->nodes[at].count = count;
        out->nodes[at].payload = out->nodes.size();
        return;
    }
    case dom::element_type::INT64: {
        int64_t v = 0;
        if (e.get(v) != SUCCESS) throw std::runtime_error("value");
        n.kind = RSC_JSON_INT;
        n.payload = (uint64_t)v;
        break;
    }
    case dom::element_type::UINT64: {
        uint64_t v = 0;
        if (e.get(v) != SUCCESS) throw std::runtime_error("value");
        n.kind = RSC_JSON_DOUBLE;
        n.payload = bits((double)v);
        break;
    }
    case dom::element_type::DOUBLE: {
        double v = 0;
        if (e.get(v) != SUCCESS) throw std::runtime_error("value");
        n.kind = RSC_JSON_DOUBLE;
        n.payload = bits(v);
        break;
    }
    case dom::element_type::STRING: {
        std::string_view s;
        if (e.get(s) != SUCCESS) throw std::runtime_error("value");
        n.kind = RSC_JSON_STRING;
        n.count = (uint32_t)s.size();
        n.payload = out->text.size();
        out->text.insert(out->text.end(), s.begin(), s.end());
        break;
    }
    case dom::element_type::BOOL: {
        bool b = false;
        if (e.get(b) != SUCCESS) throw std::runtime_error("value");
        n.kind = b ? RSC_JSON_TRUE : RSC_JSON_FALSE;
        break;
    }
    case dom::element_type::NULL_VALUE: n.kind = RSC_JSON_NULL; break;
    }
    out->nodes.push_back(n);
}

// ---- Locating the first fault (simdjson's DOM parser says what, not where) ----------------------------------------

// Offset of the first byte that does not start a valid UTF-8 sequence, or len when all are valid.
size_t first_invalid_utf8(const uint8_t *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t n;
        uint32_t cp;
        if ((c & 0xE0) == 0xC0) { n = 2; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { n = 3; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { n = 4; cp = c & 0x07; }
        else return i;
        if (i + n > len) return i;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n;
    }
    return len;
}

// One pass outside and inside strings: where a string is left open, where a control byte sits in a string, and
// where nesting first goes deeper than max_depth. Each is len when absent.
struct Scan {
    size_t unclosed_string = SIZE_MAX, control_in_string = SIZE_MAX, too_deep = SIZE_MAX, nul = SIZE_MAX;
};

Scan scan(const uint8_t *s, size_t len, size_t max_depth) {
    Scan r;
    bool in_string = false;
    size_t string_start = 0, depth = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (in_string) {
            if (c == '\\') { i++; continue; }
            if (c == '"') { in_string = false; continue; }
            if (c < 0x20 && r.control_in_string == SIZE_MAX) r.control_in_string = i;
            continue;
        }
        if (c == '"') { in_string = true; string_start = i; }
        else if (c == '[' || c == '{') {
            if (++depth > max_depth && r.too_deep == SIZE_MAX) r.too_deep = i;
        } else if (c == ']' || c == '}') {
            if (depth) depth--;
        } else if (c == 0 && r.nul == SIZE_MAX) r.nul = i;
    }
    if (in_string) r.unclosed_string = string_start;
    return r;
}

// Walks a document with simdjson's On-Demand API, which knows where it stands when it meets a fault.
error_code walk(ondemand::value v, size_t depth, size_t max_depth) {
    if (depth > max_depth) return DEPTH_ERROR;
    ondemand::json_type t;
    error_code err = v.type().get(t);
    if (err) return err;
    switch (t) {
    case ondemand::json_type::array: {
        ondemand::array a;
        if ((err = v.get_array().get(a))) return err;
        for (auto child : a) {
            ondemand::value x;
            if ((err = child.get(x))) return err;
            if ((err = walk(x, depth + 1, max_depth))) return err;
        }
        return SUCCESS;
    }
    case ondemand::json_type::object: {
        ondemand::object o;
        if ((err = v.get_object().get(o))) return err;
        for (auto field : o) {
            ondemand::field f;
            if ((err = std::move(field).get(f))) return err;
            std::string_view key;
            if ((err = f.unescaped_key().get(key))) return err;
            if ((err = walk(f.value(), depth + 1, max_depth))) return err;
        }
        return SUCCESS;
    }
    case ondemand::json_type::number: {
        double d;
        return v.get_double().get(d);
    }
    case ondemand::json_type::string: {
        std::string_view s;
        return v.get_string().get(s);
    }
    case ondemand::json_type::boolean: {
        bool b;
        return v.get_bool().get(b);
    }
    case ondemand::json_type::null: {
        bool is_null;
        err = v.is_null().get(is_null);
        if (!err && !is_null) return N_ATOM_ERROR;
        return err;
    }
    }
    return SUCCESS;
}

// The offset where On-Demand stops on the document, or SIZE_MAX when it cannot say.
size_t ondemand_fault(const uint8_t *bytes, size_t len, size_t max_depth) {
    ondemand::parser parser;
    padded_string padded((const char *)bytes, len);
    ondemand::document doc;
    if (parser.iterate(padded).get(doc)) return SIZE_MAX;
    error_code err = SUCCESS;
    bool scalar = false;
    if (doc.is_scalar().get(scalar)) return SIZE_MAX;
    if (scalar) {
        ondemand::json_type t;
        err = doc.type().get(t);
        if (!err) {
            double d;
            std::string_view s;
            bool b;
            switch (t) {
            case ondemand::json_type::number: err = doc.get_double().get(d); break;
            case ondemand::json_type::string: err = doc.get_string().get(s); break;
            case ondemand::json_type::boolean: err = doc.get_bool().get(b); break;
            case ondemand::json_type::null: err = doc.is_null().get(b); if (!err && !b) err = N_ATOM_ERROR; break;
            default: break;
            }
        }
    } else {
        ondemand::value v;
        err = doc.get_value().get(v);
        if (!err) err = walk(v, 1, max_depth);
    }
    const char *at = nullptr;
    if (!err) {
        // Everything walked: content left over is where the fault is (3.0 has no document::at_end).
        if (doc.current_location().get(at)) return SIZE_MAX;
        size_t offset = (size_t)(at - padded.data());
        return offset < len ? offset : SIZE_MAX;
    }
    if (doc.current_location().get(at)) return len;  // walked off the end: the document stops early
    size_t offset = (size_t)(at - padded.data());
    return offset <= len ? offset : len;
}

void locate(rsc_json *out, const uint8_t *bytes, size_t len, error_code code, size_t max_depth) {
    size_t offset = SIZE_MAX;
    Scan s = scan(bytes, len, max_depth);
    switch (code) {
    case UTF8_ERROR: offset = first_invalid_utf8(bytes, len); break;
    case UNCLOSED_STRING: offset = s.unclosed_string; break;
    case UNESCAPED_CHARS: offset = s.control_in_string; break;
    case DEPTH_ERROR: offset = s.too_deep; break;
    case EMPTY: offset = 0; break;
    default: break;
    }
    if (offset == SIZE_MAX && s.nul != SIZE_MAX) {
        offset = s.nul;
        out->error = "a NUL byte outside a string";
    }
    if (offset == SIZE_MAX) offset = ondemand_fault(bytes, len, max_depth);
    // Nesting too deep before the fault found (simdjson may call an unclosed deep document malformed first): the
    // depth is what to report.
    if (s.too_deep != SIZE_MAX && (offset == SIZE_MAX || s.too_deep <= offset) && code != DEPTH_ERROR) {
        char m[96];
        std::snprintf(m, sizeof m, "arrays and objects nested deeper than %zu levels", max_depth);
        out->error = m;
        offset = s.too_deep;
    }
    if (offset == SIZE_MAX || offset > len) return;
    uint64_t line = 1, column = 1;
    for (size_t i = 0; i < offset; i++) {
        if (bytes[i] == '\n') { line++; column = 1; }
        else column++;
    }
    out->error_offset = offset;
    out->error_line = line;
    out->error_column = column;
}

}  // namespace

extern "C" rsc_json *rsc_json_parse(const void *bytes, size_t length, uint32_t max_depth) {
    rsc_json *out = new (std::nothrow) rsc_json();
    if (!out) return nullptr;
    size_t depth = max_depth ? max_depth : 512;
    const uint8_t *b = bytes ? static_cast<const uint8_t *>(bytes) : (const uint8_t *)"";
    try {
        dom::parser parser;
        error_code code = parser.allocate(length, depth);
        dom::element root;
        if (!code) code = parser.parse((const char *)b, length, true).get(root);
        if (code) {
            out->error = error_message(code);
            // simdjson's message for its TAPE_ERROR is about its tape; say what it means for a file.
            if (code == TAPE_ERROR) out->error = "the JSON is not well-formed (a missing or extra bracket, comma or colon, or the file is cut short)";
            if (code == DEPTH_ERROR) {
                char m[96];
                std::snprintf(m, sizeof m, "arrays and objects nested deeper than %zu levels", depth);
                out->error = m;
            }
            locate(out, b, length, code, depth);
            return out;
        }
        // Reserved generously: untouched pages cost nothing, growing would copy (a node per ~8 bytes at most).
        out->nodes.reserve(length / 4 + 16);
        out->text.reserve(length + 64);
        emit(root, out);
    } catch (...) {
        out->nodes.clear();
        out->text.clear();
        out->error = "out of memory or malformed document";
    }
    return out;
}

extern "C" void rsc_json_destroy(rsc_json *json) { delete json; }

extern "C" const char *rsc_json_error(const rsc_json *json, uint64_t *offset, uint64_t *line, uint64_t *column) {
    if (!json) return "no document";
    if (json->error.empty()) return nullptr;
    if (offset) *offset = json->error_offset;
    if (line) *line = json->error_line;
    if (column) *column = json->error_column;
    return json->error.c_str();
}

extern "C" const rsc_json_node *rsc_json_nodes(const rsc_json *json, size_t *count) {
    *count = json ? json->nodes.size() : 0;
    return json ? json->nodes.data() : nullptr;
}

extern "C" const uint8_t *rsc_json_text(const rsc_json *json, size_t *length) {
    *length = json ? json->text.size() : 0;
    return json ? json->text.data() : nullptr;
}
