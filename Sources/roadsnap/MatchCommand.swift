// Placeholder until the match feature lands; replaced by its own implementation.
enum MatchCommand {
    static let usage = "roadsnap match (not built yet)"
    static func run(_ args: [String]) throws -> Int32 {
        writeStderr("roadsnap match: not built yet\n")
        return 2
    }
}
