/* Inside CShims only (C++): what every libosmium reader of CShims (osm.cpp, osm_areas.cpp) does before it opens a
 * file with osmium::io::Reader. */
#ifndef ROADSNAP_CSHIMS_OSMIUM_INTERNAL_H
#define ROADSNAP_CSHIMS_OSMIUM_INTERNAL_H
#include <osmium/io/file.hpp>

#include <cstddef>

/* Before a Reader opens `file` (at `path`): installs, once per process, the PBF parser that closes its file
 * descriptor when the file is malformed (libosmium 2.19's leaves it open); checks an uncompressed PBF's blob
 * framing (libosmium reads a blob header without its type through a null pointer) and an XML file's coordinates
 * (libosmium overflows on a huge exponent), read from `file`'s bytes when it is a buffer and from `path` otherwise.
 * Returns RSC_OK, or RSC_EIO / RSC_EFORMAT with the message in err. Defined in osm.cpp. */
int rsc_osmium_before_read(const char *path, const osmium::io::File &file, char *err, size_t errlen);

#endif
