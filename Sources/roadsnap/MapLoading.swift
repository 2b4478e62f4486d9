import RoadSnapCore
import RoadSnapFormats

/// Opens the map of a command, writing what the loader left out (non-car GeoJSON features, OSM ways cut by missing
/// nodes) to standard error as `roadsnap COMMAND: warning: …`.
func loadMap(_ path: String, command: String) throws(RoadSnapError) -> RoadNetwork {
    try MapLoader.load(path: path, warn: { writeStderr("roadsnap \(command): warning: \($0)\n") })
}
