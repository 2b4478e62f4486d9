import RoadSnapCore
import RoadSnapFormats

enum SnapCommand {
    static func run(_ args: [String]) throws -> Int32 {
        writeStderr("roadsnap snap: not built yet\n")
        return 2
    }
}
