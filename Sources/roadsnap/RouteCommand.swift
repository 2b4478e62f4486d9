// Placeholder until the route feature lands; replaced by its own implementation.
enum RouteCommand {
    static let usage = "roadsnap route (not built yet)"
    static func run(_ args: [String]) throws -> Int32 {
        writeStderr("roadsnap route: not built yet\n")
        return 2
    }
}
