/*
 * RoadSnap C shim: XML (libexpat) and JSON (simdjson) documents parsed in one call into flat arrays that Swift
 * walks without crossing into C per element.
 *
 * Conventions (as in cshims.h): a parse returns an owned handle freed with the matching *_destroy (NULL is a
 * no-op); it returns NULL only when memory runs out. A malformed document still gives a handle whose *_error
 * function returns the message and position of the first error; its arrays are then empty or partial and must not
 * be used. No C++ exception, expat error or simdjson error escapes. Handles are immutable after the parse and may be
 * read from any thread; parsing itself is reentrant (no shared state).
 */
#ifndef ROADSNAP_CSHIMS_PARSE_H
#define ROADSNAP_CSHIMS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------
 * XML through libexpat: the document as a list of events (start tag, end tag, text) in document order.
 *  - Names are local names: a prefix is dropped (`gpxtpx:speed` gives `speed`) and `xmlns` declarations are not
 *    listed as attributes; namespace URIs are not resolved.
 *  - Input in UTF-8, UTF-16, ISO-8859-1, US-ASCII (expat's own) or windows-1252, as the XML declaration says;
 *    names and texts are handed out as UTF-8.
 *  - Text is the character data of an element up to the next tag, entities decoded; text that is only white space
 *    (space, tab, CR, LF) is left out.
 *  - Safe for untrusted input: entity declarations (the billion-laughs attack) and external entities are refused
 *    as errors, elements nested deeper than `max_depth` are an error, invalid UTF-8 and NUL bytes are errors.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_xml rsc_xml;

#define RSC_XML_START 1
#define RSC_XML_END 2
#define RSC_XML_TEXT 3

typedef struct rsc_xml_event {
    uint32_t kind;            /* RSC_XML_START, RSC_XML_END or RSC_XML_TEXT */
    uint32_t line;            /* 1-based line where the tag or text starts */
    uint32_t column;          /* 1-based byte column where the tag or text starts */
    uint32_t length;          /* bytes of the local name (START, END) or of the text (TEXT) */
    uint64_t offset;          /* where the name or text starts in rsc_xml_text() */
    uint32_t first_attribute; /* START: index of its first attribute in rsc_xml_attributes() */
    uint32_t attribute_count; /* START: number of attributes */
} rsc_xml_event;

typedef struct rsc_xml_attribute {
    uint64_t name_offset;  /* local name, in rsc_xml_text() */
    uint64_t value_offset; /* value (entities decoded), in rsc_xml_text() */
    uint32_t name_length;
    uint32_t value_length;
} rsc_xml_attribute;

/* Parses `length` bytes (need not be NUL-terminated). max_depth 0 means 256. Returns an owned handle (NULL only
 * when out of memory); check rsc_xml_error first. */
rsc_xml *rsc_xml_parse(const void *bytes, size_t length, uint32_t max_depth);
/* Frees a parse; NULL is a no-op. */
void rsc_xml_destroy(rsc_xml *xml);
/* NULL when the document is well-formed; else the first error's message (owned by the handle) with its 1-based
 * line and column and 0-based byte offset written to the non-NULL out pointers. `at_end` is set to 1 when the
 * error is that the input ended early (a truncated document), else 0. */
const char *rsc_xml_error(const rsc_xml *xml, uint64_t *line, uint64_t *column, uint64_t *offset, int *at_end);
/* The events and their count (valid while the handle lives). */
const rsc_xml_event *rsc_xml_events(const rsc_xml *xml, size_t *count);
/* The attributes referenced by START events and their count. */
const rsc_xml_attribute *rsc_xml_attributes(const rsc_xml *xml, size_t *count);
/* The bytes names, values and texts point into (UTF-8, not NUL-terminated) and their count. */
const uint8_t *rsc_xml_text(const rsc_xml *xml, size_t *length);
/* The local names of the elements still open where parsing stopped, outermost first, joined by '/'
 * (NUL-terminated, owned by the handle; "" when none). Names what a truncated document was cut inside. */
const char *rsc_xml_open_elements(const rsc_xml *xml);

/* ------------------------------------------------------------------------------------------------------------
 * JSON through simdjson: the document as a flat array of nodes in document order (a "tape").
 *  - A container node is followed by its contents; an object's members are a STRING key node then the value's
 *    node(s). `payload` of a container is the index of the node after its last descendant, so a reader skips a
 *    value in O(1).
 *  - Integers that fit int64 are RSC_JSON_INT (payload = the int64's bits), all other numbers RSC_JSON_DOUBLE
 *    (payload = the double's bits). Strings are unescaped UTF-8 in rsc_json_text() (payload = offset).
 *  - Invalid UTF-8, NUL bytes outside strings, truncation, nesting deeper than max_depth, trailing content are
 *    errors whose message names the byte offset and line of the first fault where simdjson can tell it.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_json rsc_json;

#define RSC_JSON_NULL 0
#define RSC_JSON_FALSE 1
#define RSC_JSON_TRUE 2
#define RSC_JSON_INT 3
#define RSC_JSON_DOUBLE 4
#define RSC_JSON_STRING 5
#define RSC_JSON_ARRAY 6
#define RSC_JSON_OBJECT 7

typedef struct rsc_json_node {
    uint32_t kind;    /* RSC_JSON_* */
    uint32_t count;   /* STRING: byte length; ARRAY: elements; OBJECT: members */
    uint64_t payload; /* see above */
} rsc_json_node;

/* Parses `length` bytes. max_depth 0 means 512. Returns an owned handle (NULL only when out of memory). */
rsc_json *rsc_json_parse(const void *bytes, size_t length, uint32_t max_depth);
/* Frees a parse; NULL is a no-op. */
void rsc_json_destroy(rsc_json *json);
/* NULL when the document is valid; else the first error's message (owned by the handle). `offset` gets the 0-based
 * byte offset of the fault, `line` and `column` its 1-based line and byte column; all three are set to UINT64_MAX
 * when simdjson cannot tell where. */
const char *rsc_json_error(const rsc_json *json, uint64_t *offset, uint64_t *line, uint64_t *column);
/* The nodes and their count; node 0 is the root. */
const rsc_json_node *rsc_json_nodes(const rsc_json *json, size_t *count);
/* The bytes string payloads point into. */
const uint8_t *rsc_json_text(const rsc_json *json, size_t *length);

#ifdef __cplusplus
}
#endif

#endif
