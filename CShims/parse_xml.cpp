// XML documents through libexpat into a flat event list (see cshims_parse.h).
#include "cshims_parse.h"

#include <expat.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct rsc_xml {
    std::vector<rsc_xml_event> events;
    std::vector<rsc_xml_attribute> attributes;
    std::vector<uint8_t> text;
    std::string error;  // empty: no error
    uint64_t error_line = 0, error_column = 0, error_offset = 0;
    int error_at_end = 0;
    std::string open_elements;
};

namespace {

// Names are taken without their prefix (`gpxtpx:speed` is `speed`), as namespace processing would give them, but
// without it: expat's namespace bookkeeping costs more than the rest of the walk, and GPX readers match local names.

struct Walk {
    XML_Parser parser = nullptr;
    rsc_xml *out = nullptr;
    uint32_t max_depth = 256;
    // (offset, length) of each open element's local name, outermost first.
    std::vector<std::pair<uint64_t, uint32_t>> open;
    std::string pending;  // character data since the last tag
    bool pending_has_content = false;
    uint32_t pending_line = 0, pending_column = 0;
    std::string failure;  // our own reason to stop (depth, entities, memory)
    uint64_t failure_line = 0, failure_column = 0, failure_offset = 0;
};

void stop(Walk &w, const char *reason) {
    if (w.failure.empty()) {
        w.failure = reason;
        w.failure_line = XML_GetCurrentLineNumber(w.parser);
        w.failure_column = XML_GetCurrentColumnNumber(w.parser) + 1;
        long long index = XML_GetCurrentByteIndex(w.parser);
        w.failure_offset = index < 0 ? 0 : (uint64_t)index;
    }
    XML_StopParser(w.parser, XML_FALSE);
}

// Appends bytes to the text arena, returning their offset.
uint64_t keep(rsc_xml *out, const char *bytes, size_t length) {
    uint64_t offset = out->text.size();
    out->text.insert(out->text.end(), (const uint8_t *)bytes, (const uint8_t *)bytes + length);
    return offset;
}

// The local name of a qualified name (after its prefix when there is one).
const char *local_name(const char *name) {
    const char *colon = std::strchr(name, ':');
    return colon ? colon + 1 : name;
}

void flush_text(Walk &w) {
    if (w.pending_has_content) {
        rsc_xml_event e{};
        e.kind = RSC_XML_TEXT;
        e.line = w.pending_line;
        e.column = w.pending_column;
        e.length = (uint32_t)w.pending.size();
        e.offset = keep(w.out, w.pending.data(), w.pending.size());
        w.out->events.push_back(e);
    }
    w.pending.clear();
    w.pending_has_content = false;
}

void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **atts) {
    Walk &w = *static_cast<Walk *>(user);
    try {
        flush_text(w);
        if (w.open.size() >= w.max_depth) {
            char reason[96];
            std::snprintf(reason, sizeof reason, "elements nested deeper than %u levels", w.max_depth);
            stop(w, reason);
            return;
        }
        const char *local = local_name(name);
        rsc_xml_event e{};
        e.kind = RSC_XML_START;
        e.line = (uint32_t)XML_GetCurrentLineNumber(w.parser);
        e.column = (uint32_t)XML_GetCurrentColumnNumber(w.parser) + 1;
        e.length = (uint32_t)std::strlen(local);
        e.offset = keep(w.out, local, e.length);
        e.first_attribute = (uint32_t)w.out->attributes.size();
        for (const XML_Char **a = atts; a && a[0]; a += 2) {
            // Namespace declarations are not attributes of the document's data.
            if (std::strncmp(a[0], "xmlns", 5) == 0 && (a[0][5] == 0 || a[0][5] == ':')) continue;
            const char *attribute = local_name(a[0]);
            rsc_xml_attribute at{};
            at.name_length = (uint32_t)std::strlen(attribute);
            at.name_offset = keep(w.out, attribute, at.name_length);
            at.value_length = (uint32_t)std::strlen(a[1]);
            at.value_offset = keep(w.out, a[1], at.value_length);
            w.out->attributes.push_back(at);
            e.attribute_count++;
        }
        w.out->events.push_back(e);
        w.open.emplace_back(e.offset, e.length);
    } catch (...) {
        stop(w, "out of memory");
    }
}

void XMLCALL on_end(void *user, const XML_Char *name) {
    Walk &w = *static_cast<Walk *>(user);
    try {
        flush_text(w);
        rsc_xml_event e{};
        e.kind = RSC_XML_END;
        e.line = (uint32_t)XML_GetCurrentLineNumber(w.parser);
        e.column = (uint32_t)XML_GetCurrentColumnNumber(w.parser) + 1;
        if (!w.open.empty()) {
            e.offset = w.open.back().first;
            e.length = w.open.back().second;
            w.open.pop_back();
        } else {
            const char *local = local_name(name);
            e.length = (uint32_t)std::strlen(local);
            e.offset = keep(w.out, local, e.length);
        }
        w.out->events.push_back(e);
    } catch (...) {
        stop(w, "out of memory");
    }
}

void XMLCALL on_text(void *user, const XML_Char *s, int len) {
    Walk &w = *static_cast<Walk *>(user);
    try {
        if (!w.pending_has_content) {
            bool content = false;
            for (int i = 0; i < len; i++) {
                char c = s[i];
                if (c != ' ' && c != '\t' && c != '\r' && c != '\n') { content = true; break; }
            }
            if (!content) {
                w.pending.append(s, (size_t)len);
                if (w.pending.size() == (size_t)len) {
                    w.pending_line = (uint32_t)XML_GetCurrentLineNumber(w.parser);
                    w.pending_column = (uint32_t)XML_GetCurrentColumnNumber(w.parser) + 1;
                }
                return;
            }
            if (w.pending.empty()) {
                w.pending_line = (uint32_t)XML_GetCurrentLineNumber(w.parser);
                w.pending_column = (uint32_t)XML_GetCurrentColumnNumber(w.parser) + 1;
            }
            w.pending_has_content = true;
        }
        w.pending.append(s, (size_t)len);
    } catch (...) {
        stop(w, "out of memory");
    }
}

// Any <!ENTITY> declaration: refused, which closes the door on entity expansion attacks (billion laughs) and
// on external entities alike. GPX never needs one.
void XMLCALL on_entity_declaration(void *user, const XML_Char *, int, const XML_Char *, int, const XML_Char *,
                                   const XML_Char *, const XML_Char *, const XML_Char *) {
    stop(*static_cast<Walk *>(user), "entity declarations (<!ENTITY ...>) are not accepted");
}

int XMLCALL on_external_entity(XML_Parser parser, const XML_Char *, const XML_Char *, const XML_Char *,
                               const XML_Char *) {
    (void)parser;
    return XML_STATUS_ERROR;  // never load anything from outside the document
}

// Encodings expat does not know itself but GPX files declare: windows-1252 (Latin-1 with printable characters in
// 0x80-0x9F). Single-byte, so the map is all expat needs.
int XMLCALL on_unknown_encoding(void *, const XML_Char *name, XML_Encoding *info) {
    static const int cp1252_high[32] = {0x20AC, -1,     0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, -1,     0x017D, -1,
                                        -1,     0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, -1,     0x017E, 0x0178};
    std::string n;
    for (const char *c = name; *c; c++) n += (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    if (n != "windows-1252" && n != "cp1252" && n != "x-cp1252") return XML_STATUS_ERROR;
    for (int i = 0; i < 256; i++) info->map[i] = i >= 0x80 && i < 0xA0 ? cp1252_high[i - 0x80] : i;
    info->data = nullptr;
    info->convert = nullptr;
    info->release = nullptr;
    return XML_STATUS_OK;
}

bool is_truncation(XML_Error code) {
    return code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN || code == XML_ERROR_PARTIAL_CHAR ||
           code == XML_ERROR_UNCLOSED_CDATA_SECTION;
}

}  // namespace

extern "C" rsc_xml *rsc_xml_parse(const void *bytes, size_t length, uint32_t max_depth) {
    rsc_xml *out = new (std::nothrow) rsc_xml();
    if (!out) return nullptr;
    XML_Parser parser = XML_ParserCreate(nullptr);
    if (!parser) {
        delete out;
        return nullptr;
    }
    Walk w;
    w.parser = parser;
    w.out = out;
    w.max_depth = max_depth ? max_depth : 256;
    try {
        // Generous reservations cost nothing until touched (no page is faulted in before it is written), and spare
        // the copies of growing: a GPX point is about 8 events and 2 attributes per 100 bytes.
        out->events.reserve(length / 8 + 16);
        out->attributes.reserve(length / 32 + 16);
        out->text.reserve(length + 64);
        XML_SetUserData(parser, &w);
        XML_SetElementHandler(parser, on_start, on_end);
        XML_SetCharacterDataHandler(parser, on_text);
        XML_SetEntityDeclHandler(parser, on_entity_declaration);
        XML_SetExternalEntityRefHandler(parser, on_external_entity);
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER);
        XML_SetUnknownEncodingHandler(parser, on_unknown_encoding, nullptr);
        // Fed in pieces: expat takes int lengths, and a streaming parser need not see the whole file at once.
        const char *p = static_cast<const char *>(bytes);
        const size_t chunk = 1 << 20;
        size_t done = 0;
        XML_Status status = XML_STATUS_OK;
        do {
            size_t n = length - done < chunk ? length - done : chunk;
            bool last = done + n == length;
            status = XML_Parse(parser, p ? p + done : "", (int)n, last ? XML_TRUE : XML_FALSE);
            done += n;
        } while (status == XML_STATUS_OK && done < length);
        if (status != XML_STATUS_OK) {
            XML_Error code = XML_GetErrorCode(parser);
            if (!w.failure.empty()) {
                out->error = w.failure;
                out->error_line = w.failure_line;
                out->error_column = w.failure_column;
                out->error_offset = w.failure_offset;
            } else {
                const XML_LChar *message = XML_ErrorString(code);
                out->error = message ? message : "not well-formed";
                out->error_line = XML_GetCurrentLineNumber(parser);
                out->error_column = XML_GetCurrentColumnNumber(parser) + 1;
                long long index = XML_GetCurrentByteIndex(parser);
                out->error_offset = index < 0 ? 0 : (uint64_t)index;
                out->error_at_end = is_truncation(code) && (!w.open.empty() || code != XML_ERROR_NO_ELEMENTS);
            }
            if (out->error.empty()) out->error = "not well-formed";
        }
        for (size_t i = 0; i < w.open.size(); i++) {
            if (i) out->open_elements += '/';
            out->open_elements.append((const char *)out->text.data() + w.open[i].first, w.open[i].second);
        }
    } catch (...) {
        out->events.clear();
        out->attributes.clear();
        out->error = "out of memory";
    }
    XML_ParserFree(parser);
    return out;
}

extern "C" void rsc_xml_destroy(rsc_xml *xml) { delete xml; }

extern "C" const char *rsc_xml_error(const rsc_xml *xml, uint64_t *line, uint64_t *column, uint64_t *offset,
                                     int *at_end) {
    if (!xml) return "no document";
    if (xml->error.empty()) return nullptr;
    if (line) *line = xml->error_line;
    if (column) *column = xml->error_column;
    if (offset) *offset = xml->error_offset;
    if (at_end) *at_end = xml->error_at_end;
    return xml->error.c_str();
}

extern "C" const rsc_xml_event *rsc_xml_events(const rsc_xml *xml, size_t *count) {
    *count = xml ? xml->events.size() : 0;
    return xml ? xml->events.data() : nullptr;
}

extern "C" const rsc_xml_attribute *rsc_xml_attributes(const rsc_xml *xml, size_t *count) {
    *count = xml ? xml->attributes.size() : 0;
    return xml ? xml->attributes.data() : nullptr;
}

extern "C" const uint8_t *rsc_xml_text(const rsc_xml *xml, size_t *length) {
    *length = xml ? xml->text.size() : 0;
    return xml ? xml->text.data() : nullptr;
}

extern "C" const char *rsc_xml_open_elements(const rsc_xml *xml) { return xml ? xml->open_elements.c_str() : ""; }
